import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { SlowEmbedder, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { loadConfig } from "../../lib/config";
import { searchAnswer } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import { actOnMigration, getMigration, startMigration } from "../../lib/spaces/repository";
import { advanceMigrations, pgDb } from "../../lib/spaces/maintenance";
import { switchBackIn } from "../../lib/spaces/migrations";
import { lockTenantSpaceExclusive } from "../../lib/spaces/sql";
import { Worker } from "../../worker/loop";

// The space lock (docs/decisions/039-index-spaces.md §5): a build embedded in the old space that
// reaches its switch after the tenant moved is built again in the new space, within the same
// attempt, and search never serves an old-space vector behind a new-space pointer.

const TENANT = "race";
const op = { subject: "user:ops@example.com" };
let t: TestDb;
let worker: Worker;
const slow = new SlowEmbedder(1_500);

const publishDoc = (key: string, text: string) =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(`# ${key}\n\n${text}`),
    acl: [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: 8,
  });

const pointerSpace = async (key: string) =>
  (
    await t.pool.query<{ name: string; version_number: number }>(
      `SELECT s.name, sp.version_number FROM documents d
         JOIN search_pointers sp ON sp.document_id = d.id
         JOIN index_versions iv ON iv.id = sp.index_version_id
         JOIN embedding_spaces s ON s.id = iv.space_id
        WHERE d.tenant_id = $1 AND d.key = $2`,
      [TENANT, key],
    )
  ).rows[0];

beforeAll(async () => {
  t = await createTestDb();
  await t.pool.query(
    `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
     VALUES ('local-256', 'local', 'indexwright-local-hash-v1', 256, 'md-heading-v2')`,
  );
  const cfg = loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "10", LOG_LEVEL: "silent" });
  worker = new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: "race-w",
    concurrency: 3,
    cfg,
    embedder: slow,
    spaces: new SpaceEmbedders({ timeoutMs: 10_000, preset: slow }),
  });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(5_000);
  await t?.close();
});

describe("a build that meets a switch", () => {
  it("embedded in the old space, switching after the tenant moved: built again in the new space, same attempt", async () => {
    await publishDoc("seed", "The seed document about harbour cranes.");
    await waitFor(async () => (await pointerSpace("seed"))?.name === "local", 20_000);
    const m = await startMigration(t.pool, op, TENANT, { space: "local-256" }, 8);
    await waitFor(async () => {
      const v = await getMigration(t.pool, TENANT, m.id);
      return v.documents.built === v.documents.total;
    }, 20_000);
    await advanceMigrations(t.pool, "test", { indexMemoryMb: 64, parallelWorkers: 0 });

    const calls = slow.calls;
    const r = await publishDoc("late", "A late policy about tugboat schedules and pilot boarding.");
    // Its INDEX is embedding in the old space (1.5 s per call) when the tenant switches.
    await waitFor(async () => slow.calls > calls, 10_000, 10);
    const switched = await actOnMigration(t.pool, op, TENANT, m.id, "switch", null);
    expect(switched.state).toBe("SWITCHED");

    await waitFor(async () => (await pointerSpace("late"))?.name === "local-256", 20_000);
    const task = await t.pool.query(`SELECT status, attempts FROM index_tasks WHERE task_id = $1`, [r.taskId]);
    expect(task.rows[0]).toEqual({ status: "SUCCEEDED", attempts: 1 });
    // The previous space follows: it gets the version too, through its own MIGRATE task.
    await waitFor(async () => {
      const v = await getMigration(t.pool, TENANT, m.id);
      return v.documents.built === v.documents.total && v.documents.total === 2;
    }, 20_000);
    const a = await searchAnswer(t.pool, new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) }), {
      tenant: TENANT,
      query: "tugboat schedules pilot boarding",
      topK: 1,
      principals: [],
    });
    expect(a.space.name).toBe("local-256");
    expect(a.hits[0]?.documentKey).toBe("late");
  }, 90_000);

  it("waiting for the space lock at its switch while the tenant switches back: reads the space after the wait", async () => {
    const [m] = (
      await t.pool.query<{ id: string }>(
        `SELECT id::text FROM space_migrations WHERE tenant_id = $1 AND state = 'SWITCHED'`,
        [TENANT],
      )
    ).rows;
    const calls = slow.calls;
    // The tenant searches local-256 now; the old space (local, the slow embedder's) is its shadow.
    const client = await t.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(lockTenantSpaceExclusive(TENANT).text, lockTenantSpaceExclusive(TENANT).values);
      await publishDoc("waiter", "Harbour dues are paid monthly by the shipping line.");
      // Its INDEX embeds in local-256 (fast) and reaches its switch, where it waits for the lock.
      await waitFor(
        async () => {
          const { rows } = await t.pool.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND mode = 'ShareLock'`,
          );
          return rows.length > 0;
        },
        20_000,
        20,
      );
      // Meanwhile the tenant goes back to local in this transaction, which holds the lock.
      await switchBackIn(pgDb(client), { tenant: TENANT, id: m.id, actor: op.subject });
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK");
      throw err;
    } finally {
      client.release();
    }
    // The waiting switch saw the tenant on local after its wait, so it built again there.
    await waitFor(async () => (await pointerSpace("waiter"))?.name === "local", 30_000);
    expect(slow.calls).toBeGreaterThan(calls);
  }, 90_000);
});
