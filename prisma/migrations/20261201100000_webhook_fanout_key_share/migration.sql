-- The fan-out locks the endpoints it writes deliveries for (FOR KEY SHARE) before inserting them.
--
-- Before, it read the endpoints without a lock and let each delivery's foreign key check take the
-- lock. While an admin's DELETE of an endpoint was in flight (uncommitted, cascading its delivery
-- log), a trigger in another transaction (a document delete, a worker switch, a task dying) still
-- saw the endpoint in its snapshot, inserted a delivery for it, waited on the endpoint row in the
-- foreign key check and, once the DELETE committed, failed with 23503: the publish, delete or
-- switch it rode on failed over an endpoint nobody wanted any more.
--
-- Now the endpoints are selected FOR KEY SHARE first. A concurrent DELETE is waited for and, once
-- committed, the endpoint is skipped (READ COMMITTED re-checks a locked row and drops a deleted
-- one); a DELETE that comes later waits for this transaction, as it did behind the foreign key.
-- KEY SHARE conflicts only with DELETE and key changes (FOR UPDATE): an admin changing an
-- endpoint's URL, event types, enabled flag or secret takes FOR NO KEY UPDATE
-- (lib/webhooks/repository.ts) and does not hold up an emit. A change that disables an endpoint
-- or unsubscribes it concurrently is not waited for: who receives an event is still decided by the
-- changing transaction's snapshot. With no subscribed endpoint nothing is locked or written. The
-- lock is the one each delivery's foreign key check took anyway, only taken before the insert.
CREATE OR REPLACE FUNCTION "indexwright_webhook_emit"(p_tenant TEXT, p_type TEXT, p_data JSONB) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  ev BIGINT;
  eps UUID[];
BEGIN
  SELECT array_agg(s.id) INTO eps FROM (
    SELECT id FROM webhook_endpoints
     WHERE tenant_id = p_tenant AND enabled AND p_type = ANY(event_types)
     ORDER BY id
       FOR KEY SHARE) s;
  IF eps IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO webhook_events (message_id, tenant_id, type, payload)
  VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), p_tenant, p_type,
          jsonb_build_object('type', p_type,
                             'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                             'data', p_data))
  RETURNING id INTO ev;
  INSERT INTO webhook_deliveries (event_id, endpoint_id, tenant_id)
  SELECT ev, ep, p_tenant FROM unnest(eps) AS ep;
END $$;
