-- The bootstrap token's state, so an admin can rotate or revoke it through the API while every
-- web process reads the same answer. The token itself comes from INDEXWRIGHT_BOOTSTRAP_TOKEN (or
-- the data directory's bootstrap-token file); once a row exists it decides instead:
--   no row               the configured token signs in (as before)
--   token_hash set       only the token with that SHA-256 signs in (a rotation's)
--   token_hash NULL      no bootstrap token signs in (revoked)
-- One row at most: the bootstrap token is one credential.
CREATE TABLE "bootstrap_token" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "token_hash" TEXT,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "changed_by" TEXT NOT NULL,
    CONSTRAINT "bootstrap_token_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "bootstrap_token_one_row" CHECK ("id")
);
