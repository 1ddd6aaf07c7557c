import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type pg from "pg";
import { prisma, transaction, iso, Prisma, type Tx } from "../db/repository";
import { canSeeTenant, type Principal } from "../auth/principal";
import { DomainError } from "../domain/errors";
import { writeAudit } from "../audit/repository";
import { newSecret } from "./secret";
import { validateWebhookUrl } from "./url";
import { PREVIOUS_SECRET_HOURS, type DeliveryStatus } from "./constants";
import { deliveryIdParam, type NewEndpointBody, type PatchEndpointBody } from "./schemas";

// Webhook endpoints and their delivery log, for admins. An admin limited to tenants sees and
// changes only those tenants' endpoints; any other id is "not found", so it cannot probe for them.
// Writes are SQL through Prisma: their times come from the database clock, as the worker's do.

const inScope = (tenants: string[] | null, col = "tenant_id") =>
  Prisma.sql`(${tenants}::text[] IS NULL OR ${Prisma.raw(col)} = ANY(${tenants}::text[]))`;
const notFound = () => new DomainError("NOT_FOUND", "webhook endpoint not found");

type EndpointRow = {
  id: string;
  tenant_id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  previous_secret_until: Date | null;
  pending: number;
  failing: number;
  dead: number;
  delivered: number;
  last_attempt_at: Date | null;
};

const endpointView = (r: EndpointRow) => ({
  id: r.id,
  tenant: r.tenant_id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types,
  enabled: r.enabled,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  /** Until when a secret replaced by a rotation still signs too (the last of their windows to end). */
  previousSecretUntil: iso(r.previous_secret_until),
  deliveries: {
    pending: r.pending,
    failing: r.failing,
    dead: r.dead,
    delivered: r.delivered,
    lastAttemptAt: iso(r.last_attempt_at),
  },
});
export type EndpointView = ReturnType<typeof endpointView>;

// previous_secret_until: the end of the last window among the rotated-out secrets still signing
// (webhook_endpoints.previous_secrets: [{secret, until}], newest first).
const ENDPOINT_COLUMNS = Prisma.sql`e.id::text, e.tenant_id, e.url, e.description, e.event_types, e.enabled, e.created_by, e.created_at, e.updated_at,
  (SELECT max((p.s ->> 'until')::timestamptz) FROM jsonb_array_elements(e.previous_secrets) AS p(s) WHERE (p.s ->> 'until')::timestamptz > now()) AS previous_secret_until,
  coalesce(s.pending, 0)::int AS pending, coalesce(s.failing, 0)::int AS failing, coalesce(s.dead, 0)::int AS dead, coalesce(s.delivered, 0)::int AS delivered, s.last_attempt_at`;
const DELIVERY_SUMMARY = Prisma.sql`LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE d.status IN ('PENDING', 'SENDING')) AS pending,
         count(*) FILTER (WHERE d.status = 'RETRY_WAIT') AS failing,
         count(*) FILTER (WHERE d.status = 'DEAD') AS dead,
         count(*) FILTER (WHERE d.status = 'DELIVERED') AS delivered,
         max(d.last_attempt_at) AS last_attempt_at
    FROM webhook_deliveries d WHERE d.endpoint_id = e.id) s ON true`;

export async function listEndpoints(pool: pg.Pool, actor: Principal): Promise<EndpointView[]> {
  const rows = await prisma(pool).$queryRaw<EndpointRow[]>`
    SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e ${DELIVERY_SUMMARY}
     WHERE ${inScope(actor.tenants, "e.tenant_id")} ORDER BY e.tenant_id, e.created_at DESC LIMIT 500`;
  return rows.map(endpointView);
}

/**
 * Row locks on an endpoint. A change to its columns takes FOR NO KEY UPDATE: that does not conflict
 * with the KEY SHARE every emit takes on the endpoints it writes deliveries for
 * (indexwright_webhook_emit), so an admin's PATCH or rotation never holds up a switch, a publish or
 * a delete. Only removing the endpoint takes FOR UPDATE (the DELETE would anyway), which emits wait
 * for and then skip the endpoint.
 */
const LOCK = { change: Prisma.sql`FOR NO KEY UPDATE OF e`, remove: Prisma.sql`FOR UPDATE OF e` } as const;

async function endpointById(tx: Tx, actor: Principal, id: string, lock?: keyof typeof LOCK): Promise<EndpointRow> {
  const [r] = await tx.$queryRaw<EndpointRow[]>`
    SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e ${DELIVERY_SUMMARY}
     WHERE e.id = ${id}::uuid AND ${inScope(actor.tenants, "e.tenant_id")} ${lock ? LOCK[lock] : Prisma.empty}`;
  if (!r) throw notFound();
  return r;
}

/** The secret is in the answer once, here and after a rotation; nothing lists it again. */
export async function createEndpoint(
  pool: pg.Pool,
  actor: Principal,
  b: NewEndpointBody,
  allowPrivateNetworks: boolean,
) {
  if (!canSeeTenant(actor, b.tenant)) throw new DomainError("FORBIDDEN", `tenant ${b.tenant} is not one of yours`);
  const url = validateWebhookUrl(b.url, allowPrivateNetworks);
  const id = randomUUID();
  const secret = newSecret();
  return transaction(pool, async (tx) => {
    await tx.$executeRaw`INSERT INTO webhook_endpoints (id, tenant_id, url, description, event_types, enabled, secret, created_by)
      VALUES (${id}::uuid, ${b.tenant}, ${url}, ${b.description}, ${b.eventTypes}::text[], ${b.enabled}, ${secret}, ${actor.subject})`;
    await writeAudit(tx, {
      actor: actor.subject,
      action: "webhook.create",
      tenant: b.tenant,
      targetType: "webhook_endpoint",
      targetId: id,
      detail: { url, eventTypes: b.eventTypes, enabled: b.enabled },
    });
    return { ...endpointView(await endpointById(tx, actor, id)), secret };
  });
}

export async function updateEndpoint(
  pool: pg.Pool,
  actor: Principal,
  id: string,
  b: PatchEndpointBody,
  allowPrivateNetworks: boolean,
) {
  const url = b.url === undefined ? undefined : validateWebhookUrl(b.url, allowPrivateNetworks);
  return transaction(pool, async (tx) => {
    const cur = await endpointById(tx, actor, id, "change");
    await tx.$executeRaw`UPDATE webhook_endpoints SET
        url = coalesce(${url ?? null}, url), event_types = coalesce(${b.eventTypes ?? null}::text[], event_types),
        description = coalesce(${b.description ?? null}, description), enabled = coalesce(${b.enabled ?? null}::boolean, enabled), updated_at = now()
      WHERE id = ${id}::uuid`;
    const changed = Object.fromEntries(
      Object.entries({ url, eventTypes: b.eventTypes, description: b.description, enabled: b.enabled }).filter(
        ([, v]) => v !== undefined,
      ),
    );
    const before = { url: cur.url, eventTypes: cur.event_types, description: cur.description, enabled: cur.enabled };
    await writeAudit(tx, {
      actor: actor.subject,
      action: "webhook.update",
      tenant: cur.tenant_id,
      targetType: "webhook_endpoint",
      targetId: id,
      detail: {
        changed,
        before: Object.fromEntries(Object.keys(changed).map((k) => [k, before[k as keyof typeof before]])),
      },
    });
    return endpointView(await endpointById(tx, actor, id));
  });
}

/**
 * A new secret signs from now on; the one it replaces signs beside it for PREVIOUS_SECRET_HOURS,
 * so a receiver that has not switched yet keeps accepting deliveries meanwhile. Secrets replaced by
 * earlier rotations keep signing until their own windows end: rotating twice within the window must
 * not cut off receivers that were promised the full window for the first secret. Entries whose
 * window has ended are dropped here.
 */
export async function rotateSecret(pool: pg.Pool, actor: Principal, id: string) {
  const secret = newSecret();
  return transaction(pool, async (tx) => {
    const cur = await endpointById(tx, actor, id, "change");
    const [signing] = await tx.$queryRaw<{ n: number }[]>`UPDATE webhook_endpoints SET
        previous_secrets = jsonb_build_array(jsonb_build_object(
            'secret', secret,
            'until', to_char((now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS}::int)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
          || coalesce((SELECT jsonb_agg(p.s ORDER BY p.n)
                         FROM jsonb_array_elements(previous_secrets) WITH ORDINALITY AS p(s, n)
                        WHERE (p.s ->> 'until')::timestamptz > now()), '[]'::jsonb),
        secret = ${secret}, updated_at = now() WHERE id = ${id}::uuid
      RETURNING jsonb_array_length(previous_secrets) AS n`;
    await writeAudit(tx, {
      actor: actor.subject,
      action: "webhook.rotate_secret",
      tenant: cur.tenant_id,
      targetType: "webhook_endpoint",
      targetId: id,
      detail: { previousSecretHours: PREVIOUS_SECRET_HOURS, previousSecretsSigning: signing.n },
    });
    return { ...endpointView(await endpointById(tx, actor, id)), secret };
  });
}

/** The endpoint goes with its delivery log; events other endpoints still deliver stay. */
export async function deleteEndpoint(pool: pg.Pool, actor: Principal, id: string) {
  return transaction(pool, async (tx) => {
    const cur = await endpointById(tx, actor, id, "remove");
    await tx.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${id}::uuid`;
    await writeAudit(tx, {
      actor: actor.subject,
      action: "webhook.delete",
      tenant: cur.tenant_id,
      targetType: "webhook_endpoint",
      targetId: id,
      detail: { url: cur.url, eventTypes: cur.event_types },
    });
    return { id, deleted: true };
  });
}

type DeliveryRow = {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
  message_id: string;
  type: string;
  payload: unknown;
};

const deliveryView = (r: DeliveryRow) => ({
  id: r.id,
  status: r.status,
  attempts: r.attempts,
  /** When the next attempt is due; only meaningful while the delivery waits. */
  nextAttemptAt: r.status === "PENDING" || r.status === "RETRY_WAIT" ? r.next_attempt_at.toISOString() : null,
  lastAttemptAt: iso(r.last_attempt_at),
  responseStatus: r.last_status_code,
  latencyMs: r.last_latency_ms,
  error: r.last_error,
  deliveredAt: iso(r.delivered_at),
  createdAt: r.created_at.toISOString(),
  messageId: r.message_id,
  eventType: r.type,
  payload: r.payload,
});
export type DeliveryView = ReturnType<typeof deliveryView>;

const DELIVERY_COLUMNS = Prisma.sql`d.id::text, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.last_latency_ms, d.last_error,
  d.delivered_at, d.created_at, ev.message_id, ev.type, ev.payload`;

/** Newest first, keyset-paginated on the delivery id. */
export async function listDeliveries(
  pool: pg.Pool,
  actor: Principal,
  endpointId: string,
  f: { limit: number; cursor?: string },
) {
  const db = prisma(pool);
  const [ep] = await db.$queryRaw<
    { id: string }[]
  >`SELECT id::text FROM webhook_endpoints WHERE id = ${endpointId}::uuid AND ${inScope(actor.tenants)}`;
  if (!ep) throw notFound();
  const rows = await db.$queryRaw<DeliveryRow[]>`
    SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
     WHERE d.endpoint_id = ${endpointId}::uuid ${f.cursor ? Prisma.sql`AND d.id < ${f.cursor}::bigint` : Prisma.empty}
     ORDER BY d.id DESC LIMIT ${f.limit + 1}`;
  const more = rows.length > f.limit;
  const items = rows.slice(0, f.limit).map(deliveryView);
  return { items, nextCursor: more ? items[items.length - 1].id : null };
}

/**
 * Sends a delivery again with a fresh attempt budget, whatever it ended as (the same message id,
 * so a receiver that already has it can drop it). A send in flight (SENDING, lease running) is
 * refused: its outcome is about to be recorded. A SENDING row whose lease has lapsed has no sender
 * left to wait for (it died or hung; under a disabled endpoint no claim takes the row over, so it
 * would stay SENDING for good): it is taken back like any other. Its sender's late outcome is
 * fenced out, as after a takeover: every outcome write needs status SENDING with the lease owner and
 * attempt of its claim (lib/webhooks/sql.ts FENCE), and the row is now PENDING with no owner.
 */
export async function redeliver(
  pool: pg.Pool,
  actor: Principal,
  endpointId: string,
  deliveryId: string,
  reason: string | null,
) {
  // The route only checks for digits; past the bigint range the cast below would fail (22003, a 500).
  z.object({ deliveryId: deliveryIdParam }).parse({ deliveryId });
  return transaction(pool, async (tx) => {
    const [d] = await tx.$queryRaw<
      {
        id: string;
        tenant_id: string;
        status: string;
        attempts: number;
        lease_owner: string | null;
        lease_until: Date | null;
        in_flight: boolean;
        type: string;
        message_id: string;
      }[]
    >`
      SELECT d.id::text, d.tenant_id, d.status, d.attempts, d.lease_owner, d.lease_until,
             d.status = 'SENDING' AND coalesce(d.lease_until > now(), false) AS in_flight, ev.type, ev.message_id
        FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
       WHERE d.id = ${deliveryId}::bigint AND d.endpoint_id = ${endpointId}::uuid AND ${inScope(actor.tenants, "d.tenant_id")}
       FOR UPDATE OF d`;
    if (!d) throw new DomainError("NOT_FOUND", "webhook delivery not found");
    if (d.in_flight)
      throw new DomainError(
        "DELIVERY_IN_FLIGHT",
        "this delivery is being sent right now; its outcome will show in a moment",
      );
    const [row] = await tx.$queryRaw<DeliveryRow[]>`
      UPDATE webhook_deliveries d SET status = 'PENDING', attempts = 0, next_attempt_at = now(), lease_owner = NULL, lease_until = NULL, updated_at = now()
        FROM webhook_events ev WHERE d.id = ${deliveryId}::bigint AND ev.id = d.event_id
      RETURNING ${DELIVERY_COLUMNS}`;
    // A lapsed send: who held it and until when, for whoever reads the audit log.
    const lapsed =
      d.status === "SENDING" ? { previousLeaseOwner: d.lease_owner, leaseLapsedAt: iso(d.lease_until) } : {};
    await writeAudit(tx, {
      actor: actor.subject,
      action: "webhook.redeliver",
      tenant: d.tenant_id,
      targetType: "webhook_delivery",
      targetId: d.id,
      reason,
      detail: {
        endpointId,
        messageId: d.message_id,
        eventType: d.type,
        previousStatus: d.status,
        previousAttempts: d.attempts,
        ...lapsed,
      },
    });
    return deliveryView(row);
  });
}
