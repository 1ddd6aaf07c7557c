-- When the identity provider last told us a person's groups (their last SSO sign-in with a groups
-- claim). A person token of an SSO user carries those groups only while this is within
-- OIDC_SESSION_MAX_SECONDS: a token is not a sign-in, so without it groups the provider removed
-- would live on in tokens for as long as the token does. NULL (before this migration, or never
-- told): the token carries no SSO groups until the next SSO sign-in.
ALTER TABLE "users" ADD COLUMN "sso_groups_at" TIMESTAMPTZ(3);
