-- Sessions live in the database so that signing out, disabling a user, revoking a token or changing
-- a role takes effect on the next request instead of when a signed cookie expires. The cookie holds
-- a random id; only its sha-256 is stored, so a copy of this table opens no sessions.
CREATE TABLE "sessions" (
    "id_hash"        TEXT PRIMARY KEY,
    "user_id"        UUID REFERENCES "users"("id") ON DELETE CASCADE,
    "token_id"       UUID REFERENCES "api_tokens"("id") ON DELETE CASCADE,
    -- sha-256 of the bootstrap token the session was opened with: a changed token ends those sessions.
    "bootstrap_hash" TEXT,
    "method"         TEXT NOT NULL,
    "created_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "expires_at"     TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "revoked_at"     TIMESTAMPTZ(3),
    "user_agent"     TEXT,
    CONSTRAINT "sessions_method_check" CHECK ("method" IN ('password','token','oidc')),
    CONSTRAINT "sessions_one_owner_check" CHECK (num_nonnulls("user_id", "token_id", "bootstrap_hash") = 1)
);
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id") WHERE "user_id" IS NOT NULL;
CREATE INDEX "sessions_token_id_idx" ON "sessions"("token_id") WHERE "token_id" IS NOT NULL;
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

-- An OpenID Connect identity is bound to one user by (issuer, subject) at its first sign-in; email
-- is only used to find the user that first time, since providers let people change it.
ALTER TABLE "users" ADD COLUMN "oidc_issuer" TEXT;
ALTER TABLE "users" ADD COLUMN "oidc_subject" TEXT;
CREATE UNIQUE INDEX "users_oidc_identity_key" ON "users"("oidc_issuer", "oidc_subject");
