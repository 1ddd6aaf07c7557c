-- The person answerable for a token: who minted it, or, when another token minted it, that token's
-- person (NULL: the bootstrap token or an unknown minter). Nobody grants themselves (SELF_GRANT):
-- without this, an admin could mint an application token, or a personal token for another admin,
-- and have it add a group to their own account, which searches as that group without the audit
-- row a search-as leaves.
ALTER TABLE "api_tokens" ADD COLUMN "minted_by_user_id" UUID REFERENCES "users"("id") ON DELETE SET NULL;

-- Tokens minted before this column: by a person's subject, then along chains of tokens minting
-- tokens. created_by holds a token's name, which need not be unique: the newest token of that
-- name created before the one it minted is taken as its minter.
UPDATE "api_tokens" t SET "minted_by_user_id" = u."id"
  FROM "users" u
 WHERE t."created_by" = 'user:' || u."email";

DO $$
DECLARE n integer;
BEGIN
  LOOP
    WITH minter AS (
      SELECT t."id", (SELECT p."minted_by_user_id" FROM "api_tokens" p
                       WHERE t."created_by" = 'token:' || p."name" AND p."created_at" <= t."created_at" AND p."id" <> t."id"
                       ORDER BY p."created_at" DESC LIMIT 1) AS "user_id"
        FROM "api_tokens" t
       WHERE t."minted_by_user_id" IS NULL AND t."created_by" LIKE 'token:%'
    )
    UPDATE "api_tokens" t SET "minted_by_user_id" = minter."user_id"
      FROM minter WHERE minter."id" = t."id" AND minter."user_id" IS NOT NULL;
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n = 0;
  END LOOP;
END $$;
