import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { WebhookDeliveryLoop, type WebhookSettings } from "../../worker/webhooks";
import { claimDeliveries, markDelivered, markFailed, pruneEvents } from "../../lib/webhooks/sql";
import { redeliver, rotateSecret } from "../../lib/webhooks/repository";
import type { DomainError } from "../../lib/domain/errors";
import { statusOf } from "../../lib/http/errors";
import { bootstrapPrincipal } from "../../lib/auth/principal";
import { newSecret } from "../../lib/webhooks/secret";
import { retryDelaySeconds, parseRetryAfter } from "../../lib/webhooks/backoff";

// The delivery loop against a real receiver: a node http server in this process that verifies
// every request with the standardwebhooks library and answers as each test tells it (succeed,
// fail, hang past the timeout, ask to come back later). Events are made by the outbox's own
// function, as the triggers make them.

type Mode = "ok" | "fail" | "hang" | "retry-after";
type Received = { id: string; body: string; verified: boolean; verifiedWith: string[]; at: number };

let t: TestDb;
let server: http.Server;
let base: string;
let mode: Mode = "ok";
let failFirst = 0;
let received: Received[] = [];
let secrets: string[] = [];
const loops: WebhookDeliveryLoop[] = [];

// A timeout far above a local answer, so a loaded machine does not turn answers into timeouts;
// the hanging-receiver case sets its own short one.
const SETTINGS: WebhookSettings = {
  concurrency: 4,
  pollMs: 20,
  timeoutMs: 5000,
  maxAttempts: 3,
  retryBaseSeconds: 0.05,
  retryMaxSeconds: 0.2,
  allowPrivateNetworks: true,
  retentionDays: 30,
};

function loop(id: string, over: Partial<WebhookSettings> = {}): WebhookDeliveryLoop {
  const l = new WebhookDeliveryLoop({ pool: t.pool, workerId: id, settings: { ...SETTINGS, ...over } });
  loops.push(l);
  l.start();
  return l;
}

async function endpoint(
  opts: { path?: string; enabled?: boolean; secret?: string; url?: string } = {},
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = opts.secret ?? newSecret();
  await t.pool.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, enabled, secret, created_by) VALUES ($1, 'acme', $2, '{task.dead}', $3, $4, 'test')`,
    [id, opts.url ?? `${base}${opts.path ?? "/hook"}`, opts.enabled ?? true, secret],
  );
  secrets.push(secret);
  return { id, secret };
}

async function emit(n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    await t.pool.query(
      `SELECT indexwright_webhook_emit('acme', 'task.dead', jsonb_build_object('tenant', 'acme', 'taskId', $1::text, 'note', 'ünïcode ✓'))`,
      [String(i)],
    );
  }
}

type Row = {
  id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  message_id: string;
};
const rows = async () =>
  (
    await t.pool
      .query<Row>(`SELECT d.id::text, d.status, d.attempts, d.last_status_code, d.last_error, d.last_latency_ms, d.next_attempt_at, d.last_attempt_at, e.message_id
                              FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id ORDER BY d.id`)
  ).rows;
const allIn = (status: string, n: number) =>
  waitFor(async () => ((await rows()).filter((r) => r.status === status).length === n ? true : null), 60_000, 20);

beforeAll(async () => {
  t = await createTestDb({ poolMax: 20 });
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = {
        "webhook-id": String(req.headers["webhook-id"]),
        "webhook-timestamp": String(req.headers["webhook-timestamp"]),
        "webhook-signature": String(req.headers["webhook-signature"]),
      };
      const verifiedWith = secrets.filter((s) => {
        try {
          new Webhook(s).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      received.push({
        id: headers["webhook-id"],
        body,
        verified: verifiedWith.length > 0,
        verifiedWith,
        at: Date.now(),
      });
      if (mode === "hang") return; // never answers: the sender's timeout ends it
      if (mode === "retry-after") {
        res.writeHead(429, { "retry-after": "1" }).end();
        return;
      }
      if (mode === "fail" || failFirst > 0) {
        failFirst--;
        res.writeHead(500).end("no");
        return;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await t?.close();
});
beforeEach(async () => {
  mode = "ok";
  failFirst = 0;
  received = [];
  secrets = [];
  await t.pool.query(`TRUNCATE webhook_endpoints, webhook_events, webhook_deliveries`);
});
afterEach(async () => {
  await Promise.all(loops.splice(0).map((l) => l.stop(2000)));
  server.closeAllConnections();
});

describe("webhook delivery", () => {
  it("delivers each message once, signed, with the payload as stored, across several workers", async () => {
    await endpoint();
    await emit(40);
    loop("w1");
    loop("w2");
    loop("w3");
    await allIn("DELIVERED", 40);
    const r = await rows();
    expect(
      r.every(
        (d) => d.attempts === 1 && d.last_status_code === 204 && d.last_error === null && d.last_latency_ms !== null,
      ),
    ).toBe(true);
    // Exactly once each: no message reached the receiver twice, none is missing.
    expect(received).toHaveLength(40);
    expect(new Set(received.map((x) => x.id))).toEqual(new Set(r.map((d) => d.message_id)));
    expect(received.every((x) => x.verified)).toBe(true);
    const first = JSON.parse(received[0].body);
    expect(first).toMatchObject({ type: "task.dead", data: { tenant: "acme", note: "ünïcode ✓" } });
    expect(Date.parse(first.timestamp)).not.toBeNaN();
  });

  it("retries a failing receiver with backoff until it answers 2xx", async () => {
    await endpoint();
    failFirst = 2;
    await emit();
    loop("w1");
    await allIn("DELIVERED", 1);
    const [d] = await rows();
    expect(d).toMatchObject({ attempts: 3, last_status_code: 204, last_error: null });
    expect(received.map((x) => x.id)).toEqual([d.message_id, d.message_id, d.message_id]);
    // Backoff with jitter: at least half the plain delay between attempts (50 ms, then 100 ms).
    expect(received[1].at - received[0].at).toBeGreaterThanOrEqual(25);
    expect(received[2].at - received[1].at).toBeGreaterThanOrEqual(50);
  });

  it("gives up after the last attempt: DEAD with the receiver's status", async () => {
    await endpoint();
    mode = "fail";
    await emit();
    loop("w1");
    await allIn("DEAD", 1);
    expect((await rows())[0]).toMatchObject({ attempts: 3, last_status_code: 500, last_error: "HTTP 500" });
    expect(received).toHaveLength(3);
  });

  it("times a hanging receiver out and schedules the next attempt", async () => {
    await endpoint();
    mode = "hang";
    await emit();
    loop("w1", { timeoutMs: 300, retryBaseSeconds: 60, retryMaxSeconds: 60 });
    await allIn("RETRY_WAIT", 1);
    const [d] = await rows();
    expect(d).toMatchObject({ attempts: 1, last_status_code: null, last_error: "timed out after 300 ms" });
    expect(d.last_latency_ms).toBeGreaterThanOrEqual(300);
    // The next attempt is 30–60 s out (equal jitter of a 60 s backoff), on the database clock.
    const wait = (d.next_attempt_at.getTime() - d.last_attempt_at!.getTime()) / 1000;
    expect(wait).toBeGreaterThanOrEqual(29.9);
    expect(wait).toBeLessThanOrEqual(60.1);
  });

  it("honours Retry-After up to the cap", async () => {
    await endpoint();
    mode = "retry-after";
    await emit();
    loop("w1", { retryBaseSeconds: 0.05, retryMaxSeconds: 5 });
    await allIn("RETRY_WAIT", 1);
    const [d] = await rows();
    expect(d.last_status_code).toBe(429);
    expect((d.next_attempt_at.getTime() - d.last_attempt_at!.getTime()) / 1000).toBeGreaterThanOrEqual(0.99);
  });

  it("refuses a receiver on a private address unless private networks are allowed", async () => {
    await endpoint();
    await emit();
    loop("w1", { allowPrivateNetworks: false, retryBaseSeconds: 60, retryMaxSeconds: 60 });
    await allIn("RETRY_WAIT", 1);
    const [d] = await rows();
    expect(d.last_status_code).toBeNull();
    expect(d.last_error).toBe(
      "blocked: 127.0.0.1 is a private IP address; webhooks go to public addresses unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true",
    );
    expect(received).toHaveLength(0);
  });

  it("signs with the rotated-out secret too while it is still valid", async () => {
    const { id, secret: old } = await endpoint();
    const fresh = newSecret();
    secrets = [fresh, old];
    await t.pool.query(
      `UPDATE webhook_endpoints SET previous_secrets = jsonb_build_array(jsonb_build_object('secret', secret, 'until', to_char((now() + interval '1 hour') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
              secret = $2 WHERE id = $1`,
      [id, fresh],
    );
    await emit();
    loop("w1");
    await allIn("DELIVERED", 1);
    // A receiver on either secret accepts the request.
    expect(received[0].verifiedWith).toEqual([fresh, old]);
    // Once the overlap has passed, only the new secret signs.
    await t.pool.query(
      `UPDATE webhook_endpoints SET previous_secrets = jsonb_build_array(previous_secrets -> 0 || jsonb_build_object('until', to_char((now() - interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) WHERE id = $1`,
      [id],
    );
    await emit();
    await allIn("DELIVERED", 2);
    expect(received[1].verifiedWith).toEqual([fresh]);
  });

  it("keeps every rotated-out secret signing until its own window ends, also after a second rotation", async () => {
    const { id, secret: s0 } = await endpoint();
    const admin = bootstrapPrincipal();
    const s1 = (await rotateSecret(t.pool, admin, id)).secret;
    const s2 = (await rotateSecret(t.pool, admin, id)).secret;
    secrets = [s2, s1, s0];
    loop("w1");
    await emit();
    await allIn("DELIVERED", 1);
    // Receivers still on S0 (rotated out less than 24 h ago) and on S1 accept it, as do those on S2.
    expect(received[0].verifiedWith).toEqual([s2, s1, s0]);
    expect(received[0].verified).toBe(true);
    // S0's window ends (it was rotated out first): S1 and S2 sign.
    const expire = (secret: string) =>
      t.pool.query(
        `UPDATE webhook_endpoints SET previous_secrets = (
           SELECT jsonb_agg(CASE WHEN p->>'secret' = $2 THEN p || jsonb_build_object('until', to_char((now() - interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ELSE p END)
             FROM jsonb_array_elements(previous_secrets) p) WHERE id = $1`,
        [id, secret],
      );
    await expire(s0);
    await emit();
    await allIn("DELIVERED", 2);
    expect(received[1].verifiedWith).toEqual([s2, s1]);
    // After both windows, only S2.
    await expire(s1);
    await emit();
    await allIn("DELIVERED", 3);
    expect(received[2].verifiedWith).toEqual([s2]);
  });

  it("keeps a disabled endpoint's deliveries waiting and sends them once it is enabled", async () => {
    const { id } = await endpoint();
    await emit();
    await t.pool.query(`UPDATE webhook_endpoints SET enabled = false WHERE id = $1`, [id]);
    const l = loop("w1");
    for (let i = 0; i < 5; i++) await l.tick();
    expect((await rows())[0].status).toBe("PENDING");
    await t.pool.query(`UPDATE webhook_endpoints SET enabled = true WHERE id = $1`, [id]);
    await allIn("DELIVERED", 1);
  });

  it("takes over a send whose lease ran out; the first sender's late outcome is fenced out", async () => {
    await endpoint();
    await emit();
    const [ghost] = (await t.pool.query(claimDeliveries("ghost", 1, 3, 60))).rows;
    expect(ghost.attempts).toBe(1);
    await t.pool.query(`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second'`);
    loop("w1");
    await allIn("DELIVERED", 1);
    expect((await rows())[0]).toMatchObject({ attempts: 2 });
    const late = await t.pool.query(markDelivered(ghost.id, "ghost", 1, 200, 5));
    expect(late.rowCount).toBe(0);
  });

  it("redelivers a send whose lease lapsed under a disabled endpoint; the dead sender's late outcome is fenced out", async () => {
    const { id: endpointId } = await endpoint();
    await emit();
    const [ghost] = (await t.pool.query(claimDeliveries("ghost", 1, 3, 60))).rows;
    // The sender died mid-send and the endpoint was disabled meanwhile: no claim takes the row over.
    await t.pool.query(`UPDATE webhook_endpoints SET enabled = false WHERE id = $1`, [endpointId]);
    await t.pool.query(`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second'`);
    const l = loop("w1");
    for (let i = 0; i < 3; i++) await l.tick();
    expect((await rows())[0]).toMatchObject({ status: "SENDING", attempts: 1 });
    const admin = bootstrapPrincipal();
    const r = await redeliver(t.pool, admin, endpointId, ghost.id, "sender died");
    expect(r).toMatchObject({ id: ghost.id, status: "PENDING", attempts: 0 });
    const audit = (
      await t.pool.query(`SELECT detail FROM audit_log WHERE action = 'webhook.redeliver' AND target_id = $1`, [
        ghost.id,
      ])
    ).rows;
    expect(audit).toEqual([
      {
        detail: expect.objectContaining({
          previousStatus: "SENDING",
          previousAttempts: 1,
          previousLeaseOwner: "ghost",
        }),
      },
    ]);
    // The dead sender answers late, either way: nothing changes.
    expect((await t.pool.query(markDelivered(ghost.id, "ghost", 1, 200, 5))).rowCount).toBe(0);
    expect((await t.pool.query(markFailed(ghost.id, "ghost", 1, 3, 1, 500, 5, "HTTP 500"))).rowCount).toBe(0);
    expect((await rows())[0]).toMatchObject({ status: "PENDING", attempts: 0, last_status_code: null });
    // Enabled again, it goes out with a full budget; the dead sender still cannot write.
    await t.pool.query(`UPDATE webhook_endpoints SET enabled = true WHERE id = $1`, [endpointId]);
    await allIn("DELIVERED", 1);
    expect((await rows())[0]).toMatchObject({ attempts: 1, last_status_code: 204 });
    expect(received).toHaveLength(1);
    expect((await t.pool.query(markFailed(ghost.id, "ghost", 1, 3, 1, 500, 5, "HTTP 500"))).rowCount).toBe(0);
    expect((await rows())[0]).toMatchObject({ status: "DELIVERED", last_status_code: 204 });
  });

  it("still refuses to redeliver a send whose lease is running", async () => {
    const { id: endpointId } = await endpoint();
    await emit();
    const [held] = (await t.pool.query(claimDeliveries("busy", 1, 3, 60))).rows;
    const refused = await redeliver(t.pool, bootstrapPrincipal(), endpointId, held.id, null).then(
      () => null,
      (e: DomainError) => e,
    );
    expect(refused && { status: statusOf(refused), code: refused.code }).toMatchObject({
      status: 409,
      code: "DELIVERY_IN_FLIGHT",
    });
    expect((await rows())[0]).toMatchObject({ status: "SENDING", attempts: 1 });
    expect((await t.pool.query(markDelivered(held.id, "busy", 1, 204, 5))).rowCount).toBe(1);
  });
});

describe("webhook retention", () => {
  it("prunes old events whose deliveries all ended, never one still waiting", async () => {
    await endpoint();
    await emit(3);
    const ids = (await rows()).map((r) => r.id);
    await t.pool.query(`UPDATE webhook_deliveries SET status = 'DELIVERED' WHERE id = $1`, [ids[0]]);
    await t.pool.query(`UPDATE webhook_deliveries SET status = 'DEAD' WHERE id = $1`, [ids[1]]);
    await t.pool.query(`UPDATE webhook_events SET created_at = now() - interval '31 days'`);
    expect((await t.pool.query(pruneEvents(30, 1000))).rowCount).toBe(2);
    expect((await rows()).map((r) => [r.id, r.status])).toEqual([[ids[2], "PENDING"]]);
    expect((await t.pool.query(pruneEvents(30, 1000))).rowCount).toBe(0);
  });
});

describe("retry delays", () => {
  it("grow exponentially to the cap, jittered within the upper half, and honour Retry-After", () => {
    expect([1, 2, 3, 4].map((n) => retryDelaySeconds(n, 10, 60, null, () => 0))).toEqual([5, 10, 20, 30]);
    expect([1, 2, 3, 4].map((n) => retryDelaySeconds(n, 10, 60, null, () => 1))).toEqual([10, 20, 40, 60]);
    expect(retryDelaySeconds(1, 10, 60, 45, () => 0)).toBe(45);
    expect(retryDelaySeconds(1, 10, 60, 600, () => 0)).toBe(60);
    expect(parseRetryAfter("120")).toBe(120);
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThan(28);
    expect(parseRetryAfter("soon")).toBeNull();
  });
});
