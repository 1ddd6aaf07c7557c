import type { Statement } from "../db/pool";

// The delivery loop's statements (worker/webhooks.ts), raw pg like the task engine's: one function
// per statement, the database clock for every time, and the lease attempt as the fence of every
// write a sender makes. test/webhooks/sql.snapshot.test.ts renders each one.

export type ClaimedDelivery = {
  id: string;
  attempts: number;
  endpoint_id: string;
  tenant_id: string;
  message_id: string;
  type: string;
  body: string;
  url: string;
  secret: string;
  /**
   * The secrets rotations replaced that are still inside their window, newest first and separated
   * by spaces (a whsec_ secret holds none), or null: all of them sign beside `secret`
   * (signedHeaders splits them). One column, so a sender reading only `secret` and
   * `previous_secret` signs with every one.
   */
  previous_secret: string | null;
};

/**
 * Takes up to `limit` due deliveries of enabled endpoints: waiting ones whose time has come and
 * sends whose lease ran out (their sender died or hung past the timeout), with SKIP LOCKED so
 * several workers never take the same row. Raising `attempts` makes the claim a new fence: a late
 * answer to the previous attempt can no longer write. A disabled endpoint's deliveries wait.
 */
export function claimDeliveries(owner: string, limit: number, maxAttempts: number, leaseSeconds: number): Statement {
  return {
    text: `WITH due AS (
  SELECT d.id
    FROM webhook_deliveries d
    JOIN webhook_endpoints ep ON ep.id = d.endpoint_id AND ep.enabled
   WHERE ((d.status IN ('PENDING', 'RETRY_WAIT') AND d.next_attempt_at <= now())
          OR (d.status = 'SENDING' AND d.lease_until <= now()))
     AND d.attempts < $3
   ORDER BY d.next_attempt_at, d.id
   LIMIT $2
   FOR UPDATE OF d SKIP LOCKED)
UPDATE webhook_deliveries d
   SET status = 'SENDING', attempts = d.attempts + 1, lease_owner = $1,
       lease_until = now() + make_interval(secs => $4::double precision), last_attempt_at = now(), updated_at = now()
  FROM due, webhook_events e, webhook_endpoints ep
 WHERE d.id = due.id AND e.id = d.event_id AND ep.id = d.endpoint_id
RETURNING d.id::text, d.attempts, d.endpoint_id::text, d.tenant_id, e.message_id, e.type, e.payload::text AS body, ep.url, ep.secret,
          (SELECT string_agg(p.s ->> 'secret', ' ' ORDER BY p.n)
             FROM jsonb_array_elements(ep.previous_secrets) WITH ORDINALITY AS p(s, n)
            WHERE (p.s ->> 'until')::timestamptz > now()) AS previous_secret`,
    values: [owner, limit, maxAttempts, leaseSeconds],
  };
}

/**
 * A send whose lease ran out on its last allowed attempt: nobody may claim it again, so it is DEAD
 * (the claim's `attempts < max` keeps it from being taken past its budget).
 */
export function expireExhausted(maxAttempts: number): Statement {
  return {
    text: `UPDATE webhook_deliveries
   SET status = 'DEAD', lease_owner = NULL, lease_until = NULL, updated_at = now(),
       last_error = coalesce(last_error || '; ', '') || 'lease expired on the last attempt'
 WHERE status = 'SENDING' AND lease_until <= now() AND attempts >= $1`,
    values: [maxAttempts],
  };
}

const FENCE = `id = $1::bigint AND status = 'SENDING' AND lease_owner = $2 AND attempts = $3`;

/** A 2xx answer. Zero rows back: the lease was taken over (the receiver may see the message twice). */
export function markDelivered(
  id: string,
  owner: string,
  attempt: number,
  statusCode: number,
  latencyMs: number,
): Statement {
  return {
    text: `UPDATE webhook_deliveries
   SET status = 'DELIVERED', delivered_at = now(), lease_owner = NULL, lease_until = NULL,
       last_status_code = $4, last_latency_ms = $5, last_error = NULL, updated_at = now()
 WHERE ${FENCE}
RETURNING status`,
    values: [id, owner, attempt, statusCode, latencyMs],
  };
}

/**
 * Any other outcome: the next attempt after `delaySeconds`, or DEAD when this was the last one.
 * The status code is null when no answer came (refused, reset, timed out, blocked address).
 */
export function markFailed(
  id: string,
  owner: string,
  attempt: number,
  maxAttempts: number,
  delaySeconds: number,
  statusCode: number | null,
  latencyMs: number,
  error: string,
): Statement {
  return {
    text: `UPDATE webhook_deliveries
   SET status = CASE WHEN attempts >= $4 THEN 'DEAD' ELSE 'RETRY_WAIT' END,
       next_attempt_at = CASE WHEN attempts >= $4 THEN next_attempt_at ELSE now() + make_interval(secs => $5::double precision) END,
       lease_owner = NULL, lease_until = NULL,
       last_status_code = $6, last_latency_ms = $7, last_error = $8, updated_at = now()
 WHERE ${FENCE}
RETURNING status`,
    values: [id, owner, attempt, maxAttempts, delaySeconds, statusCode, latencyMs, error],
  };
}

/**
 * Events older than the retention whose every delivery has ended (DELIVERED or DEAD) go, with
 * their deliveries (ON DELETE CASCADE); at most `limit` per call, so one sweep never holds many
 * row locks. An event still waiting or retrying somewhere stays, however old.
 */
export function pruneEvents(retentionDays: number, limit: number): Statement {
  return {
    text: `DELETE FROM webhook_events WHERE id IN (
  SELECT e.id FROM webhook_events e
   WHERE e.created_at < now() - make_interval(days => $1::int)
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status NOT IN ('DELIVERED', 'DEAD'))
   ORDER BY e.created_at
   LIMIT $2)`,
    values: [retentionDays, limit],
  };
}
