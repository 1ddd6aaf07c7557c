-- Trust model. All-tenant access becomes an explicit grant ('*'), so an empty list now means what
-- it says: no tenants. Existing rows with an empty list were written when it meant "all" and keep
-- that meaning through the explicit form, except people created at their first SSO sign-in: nobody
-- granted them anything (the empty list was the insert's default), so they keep no tenants until an
-- admin grants some. An admin's later edit of such a person is an explicit grant and is kept.
UPDATE "users" u SET "tenants" = ARRAY['*']::TEXT[]
 WHERE cardinality(u."tenants") = 0
   AND NOT EXISTS (SELECT 1 FROM "audit_log" a WHERE a."actor" = 'sso' AND a."action" = 'user.create' AND a."target_id" = u."id"::text
                     AND NOT EXISTS (SELECT 1 FROM "audit_log" e WHERE e."action" = 'user.update' AND e."target_id" = u."id"::text AND e."detail" ? 'tenants'));
UPDATE "api_tokens" SET "tenants" = ARRAY['*']::TEXT[] WHERE cardinality("tenants") = 0;
ALTER TABLE "users" ALTER COLUMN "tenants" SET DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "users" ADD CONSTRAINT "users_tenants_all_alone" CHECK (NOT ('*' = ANY("tenants")) OR cardinality("tenants") = 1);
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_tenants_all_alone" CHECK (NOT ('*' = ANY("tenants")) OR cardinality("tenants") = 1);

-- People search as themselves: their email and their groups. Groups come from an admin
-- ("groups") or from the identity provider's claim at each SSO sign-in ("sso_groups").
ALTER TABLE "users" ADD COLUMN "groups" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "users" ADD COLUMN "sso_groups" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

-- A token either belongs to a person (user_id set: it acts as that user, never above them) or to an
-- application (user_id NULL), whose extra powers are capabilities chosen when it is minted.
ALTER TABLE "api_tokens" ADD COLUMN "user_id" UUID REFERENCES "users"("id") ON DELETE CASCADE;
ALTER TABLE "api_tokens" ADD COLUMN "capabilities" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_capabilities_known" CHECK ("capabilities" <@ ARRAY['search:principals', 'metrics:read']::TEXT[]);
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_person_has_no_capabilities" CHECK ("user_id" IS NULL OR cardinality("capabilities") = 0);
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");
