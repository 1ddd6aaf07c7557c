-- Every secret a rotation replaced keeps signing until its own window ends, not just the last one.
--
-- Before, an endpoint kept one previous secret (previous_secret, previous_secret_until) and a
-- rotation overwrote it with the current one. Rotating S0 -> S1 and, within 24 hours, S1 -> S2 left
-- S2 and S1 signing: receivers still on S0 (told they had 24 hours) refused every delivery at once.
--
-- Now previous_secrets holds each replaced secret with the end of its window, newest first:
--   [{"secret": "whsec_…", "until": "2026-12-02T10:00:00.000Z"}, …]
-- A rotation prepends the secret it replaces (until now() + 24 h) and drops the entries whose window
-- has ended; the delivery claim signs with the current secret and every entry still inside its
-- window (Standard Webhooks allows several space-separated signatures in webhook-signature).
-- A replaced secret still inside its window moves over; an expired one is not kept.
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secrets" JSONB NOT NULL DEFAULT '[]'::jsonb
  CONSTRAINT "webhook_endpoints_previous_secrets_array" CHECK (jsonb_typeof("previous_secrets") = 'array');

UPDATE "webhook_endpoints"
   SET "previous_secrets" = jsonb_build_array(jsonb_build_object(
         'secret', "previous_secret",
         'until', to_char("previous_secret_until" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
 WHERE "previous_secret" IS NOT NULL AND "previous_secret_until" > now();

ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret", DROP COLUMN "previous_secret_until";
