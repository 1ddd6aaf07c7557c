import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { createTestDb, extraPool, onRealPostgres, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { requestDelete } from "../../lib/documents/repository";
import { bootstrapPrincipal } from "../../lib/auth/principal";
import { rotateSecret, updateEndpoint } from "../../lib/webhooks/repository";

// Endpoint row locks against the fan-out (prisma/migrations/20261201100000_webhook_fanout_key_share):
// an endpoint deleted while a trigger emits must not fail the change the trigger rides on, and an
// admin changing an endpoint must not hold up the emits. Concurrent transactions that queue behind
// each other's row locks: the embedded database runs one transaction at a time, so these need the
// real server.

let t: TestDb;
let side: pg.Pool;
const admin = bootstrapPrincipal();

async function endpoint(tenant: string, eventTypes: string[]): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, created_by) VALUES ($1, $2, 'http://127.0.0.1:9/hook', $3, 'whsec_dGVzdA==', 'test')`,
    [id, tenant, eventTypes],
  );
  return id;
}
const pub = (tenant: string, key: string) =>
  publish(t.pool, {
    tenant,
    key,
    title: key,
    contentType: "text/plain",
    content: Buffer.from(`text of ${key}`),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });
/** Some other backend of this database waits on a row lock (a statement of `pattern`). */
const someoneWaits = (pattern: string) =>
  waitFor(
    async () =>
      (
        await t.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1 AND pid <> pg_backend_pid()`,
          [pattern],
        )
      ).rowCount,
    10_000,
    20,
  );

beforeAll(async () => {
  t = await createTestDb({ poolMax: 10 });
  side = extraPool(t.url, { max: 2 });
});
afterAll(async () => {
  await side?.end();
  await t?.close();
});
beforeEach(async () => {
  await t.pool.query(`TRUNCATE webhook_endpoints, webhook_events, webhook_deliveries`);
});

describe.runIf(onRealPostgres)("endpoint locks vs the fan-out", () => {
  it("a document delete racing an endpoint's DELETE succeeds, with no delivery for the deleted endpoint", async () => {
    const doomed = await endpoint("lk", ["document.deleted"]);
    const kept = await endpoint("lk", ["document.deleted"]);
    await pub("lk", "doc");
    // The admin's DELETE, cascading, not yet committed.
    const c = await side.connect();
    try {
      await c.query("BEGIN");
      expect((await c.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [doomed])).rowCount).toBe(1);
      // The document delete emits document.deleted in its own transaction and must wait on the endpoint.
      const deleting = requestDelete(t.pool, "lk", "doc", "test", 3).then(
        (r) => ({ ok: true as const, r }),
        (err: Error & { code?: string }) => ({ ok: false as const, code: err.code, message: err.message }),
      );
      await someoneWaits("%deleted_at%");
      await c.query("COMMIT");
      const outcome = await deleting;
      expect(outcome).toMatchObject({ ok: true });
    } finally {
      c.release();
    }
    expect(
      (
        await t.pool.query(
          `SELECT deleted_at IS NOT NULL AS deleted FROM documents WHERE tenant_id = 'lk' AND key = 'doc'`,
        )
      ).rows,
    ).toEqual([{ deleted: true }]);
    const deliveries = (
      await t.pool.query(
        `SELECT d.endpoint_id::text AS endpoint, e.type FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id`,
      )
    ).rows;
    expect(deliveries).toEqual([{ endpoint: kept, type: "document.deleted" }]);
  });

  it("an event whose only endpoint is deleted meanwhile writes nothing, and its change commits", async () => {
    const doomed = await endpoint("lk", ["document.deleted"]);
    await pub("lk", "alone");
    const c = await side.connect();
    try {
      await c.query("BEGIN");
      await c.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [doomed]);
      const deleting = requestDelete(t.pool, "lk", "alone", "test", 3);
      await someoneWaits("%deleted_at%");
      await c.query("COMMIT");
      expect(await deleting).toMatchObject({ taskId: expect.any(String) });
    } finally {
      c.release();
    }
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM webhook_events`)).rows[0].n).toBe(0);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries`)).rows[0].n).toBe(0);
  });

  it("changing or rotating an endpoint does not wait for a transaction that is emitting to it", async () => {
    const id = await endpoint("lk", ["task.dead"]);
    const c = await side.connect();
    try {
      // An emit in flight: its delivery holds KEY SHARE on the endpoint until it commits.
      await c.query("BEGIN");
      await c.query(`SELECT indexwright_webhook_emit('lk', 'task.dead', '{}'::jsonb)`);
      const within = <T>(p: Promise<T>) =>
        Promise.race([p, new Promise<"blocked">((r) => setTimeout(() => r("blocked"), 3000))]);
      const patched = await within(
        updateEndpoint(t.pool, admin, id, { description: "changed while an event was being written" }, true),
      );
      expect(patched).toMatchObject({ id, description: "changed while an event was being written" });
      const rotated = await within(rotateSecret(t.pool, admin, id));
      expect(rotated).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/) });
      await c.query("COMMIT");
    } finally {
      c.release();
    }
    expect(
      (await t.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [id])).rows[0].n,
    ).toBe(1);
  });
});
