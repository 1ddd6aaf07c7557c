import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, onRealPostgres, type TestDb, extraPool } from "../helpers/db";
import { seedTasks, expireLease } from "../helpers/seed";
import {
  claim,
  complete,
  isEmbeddedServer,
  preparedStatementsFor,
  setPreparedStatements,
} from "../../lib/queue/engine";
import { loadConfig } from "../../lib/config";
import { LeaseLostError } from "../../lib/queue/errors";
import { withTransaction } from "../../lib/db/pool";
import { Worker } from "../../worker/loop";
import { LocalEmbedder } from "../../lib/embedding";
import { publish } from "../../lib/documents/publish";
import { longDocument, waitFor } from "../helpers/worker";

// Named statements need one server session per connection, which the embedded database does not
// give (all connections share one session), so this runs on real PostgreSQL only.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
afterEach(() => setPreparedStatements(false));

describe.runIf(onRealPostgres)("claim and complete as named statements", () => {
  it("behave as the unnamed ones: fenced, with their events, the claim still committed asynchronously", async () => {
    setPreparedStatements(true);
    const [id] = await seedTasks(t.pool, 1, { tenant: "named" });
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const [a] = await claim(c, "A", 60, 1);
      expect((await c.query(`SELECT current_setting('synchronous_commit') AS v`)).rows[0].v).toBe("off");
      await c.query("COMMIT");
      await expireLease(t.pool, id);
      const [b] = await claim(c, "B", 60, 1);
      expect(b.leaseAttempt).toBe(a.leaseAttempt + 1);
      // The zombie's completion is fenced out, inside a transaction as in a switch.
      await expect(withTransaction(t.pool, (tx) => complete(tx, a))).rejects.toBeInstanceOf(LeaseLostError);
      await withTransaction(t.pool, (tx) => complete(tx, b));
      // Both statements are prepared once on the connection that ran them, named by their text.
      const names = (await c.query(`SELECT name FROM pg_prepared_statements ORDER BY name`)).rows.map((r) => r.name);
      expect(names.length).toBe(1);
      expect(names[0]).toMatch(/^iw_[0-9a-f]{20}$/);
    } finally {
      c.release();
    }
    const kinds = (
      await t.pool.query(`SELECT kind, lease_attempt FROM task_events WHERE task_id = $1 ORDER BY id`, [id])
    ).rows;
    expect(kinds).toEqual([
      { kind: "CLAIMED", lease_attempt: 1 },
      { kind: "LEASE_TAKEN_OVER", lease_attempt: 2 },
      { kind: "SUCCEEDED", lease_attempt: 2 },
    ]);
  });

  it("are unnamed again once turned off", async () => {
    setPreparedStatements(false);
    await seedTasks(t.pool, 1, { tenant: "unnamed" });
    const c = await t.pool.connect();
    try {
      await c.query(`DEALLOCATE ALL`);
      const [l] = await claim(c, "C", 60, 1);
      await complete(c, l);
      expect((await c.query(`SELECT count(*)::int AS n FROM pg_prepared_statements`)).rows[0].n).toBe(0);
    } finally {
      c.release();
    }
  });
});

describe.runIf(onRealPostgres)("the index pipeline and publish as named statements", () => {
  const doc = (key: string, text: string) => ({
    tenant: "named-pipeline",
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(text),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });

  it("index a batch of documents as the unnamed ones do, each statement prepared once on its connection", async () => {
    // One connection each, so pg_prepared_statements (per session) shows everything that ran there.
    const publisher = extraPool(t.url, { max: 1 });
    const workerPool = extraPool(t.url, { max: 1 });
    const worker = new Worker({
      pool: workerPool,
      databaseUrl: t.url,
      workerId: "named-pipeline",
      concurrency: 1,
      cfg: loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "10", LOG_LEVEL: "silent" }),
      embedder: new LocalEmbedder(384),
      preparedStatements: true,
    });
    try {
      // A first publish, a re-publish with one paragraph changed, and an identical re-publish.
      for (const k of ["a", "b", "c"]) await publish(publisher, doc(k, longDocument(6, k)));
      await publish(publisher, doc("a", longDocument(6, "a") + "\n\nOne more paragraph."));
      const same = await publish(publisher, doc("b", longDocument(6, "b")));
      expect(same.created).toBe(false);
      const publishStatements = (
        await publisher.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements`)
      ).rows.map((r) => r.statement);
      expect(publishStatements.some((s) => s.includes("INSERT INTO document_versions"))).toBe(true);
      expect(publishStatements.some((s) => s.includes("FOR NO KEY UPDATE OF d"))).toBe(true);

      await worker.start();
      await waitFor(async () => {
        const r = await t.pool.query(
          `SELECT count(*)::int AS n FROM documents d JOIN search_pointers sp ON sp.document_id = d.id
            WHERE d.tenant_id = 'named-pipeline' AND sp.version_number = d.business_version`,
        );
        return r.rows[0].n === 3;
      });
      await worker.stop(1000);
      const statements = (
        await workerPool.query<{ name: string; statement: string }>(
          `SELECT name, statement FROM pg_prepared_statements`,
        )
      ).rows;
      for (const part of [
        "INSERT INTO index_versions",
        "CROSS JOIN LATERAL",
        "WITH m AS",
        "INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)",
      ]) {
        expect(
          statements.some((s) => s.statement.includes(part)),
          part,
        ).toBe(true);
      }
      expect(new Set(statements.map((s) => s.name)).size).toBe(statements.length);
      // Each document serves its business version, every record checked as the unnamed path checks it.
      const served = (
        await t.pool.query(
          `SELECT d.key, sp.version_number, iv.status, iv.chunk_count, (SELECT count(*)::int FROM chunks c WHERE c.index_version_id = iv.id) AS records
             FROM documents d JOIN search_pointers sp ON sp.document_id = d.id JOIN index_versions iv ON iv.id = sp.index_version_id
            WHERE d.tenant_id = 'named-pipeline' ORDER BY d.key`,
        )
      ).rows;
      expect(served.map((r) => [r.key, r.version_number, r.status])).toEqual([
        ["a", 2, "ACTIVE"],
        ["b", 1, "ACTIVE"],
        ["c", 1, "ACTIVE"],
      ]);
      for (const r of served) expect(r.records).toBe(r.chunk_count);
    } finally {
      await worker.stop(1000);
      await publisher.end();
      await workerPool.end();
    }
  });
});

describe("WORKER_PREPARED_STATEMENTS", () => {
  it("auto names them on an external PostgreSQL and not on the embedded database; true/false force it", () => {
    const setting = loadConfig({}).WORKER_PREPARED_STATEMENTS;
    expect(setting).toBe("auto");
    expect(preparedStatementsFor(setting, false)).toBe(true);
    expect(preparedStatementsFor(setting, true)).toBe(false);
    expect(preparedStatementsFor("false", false)).toBe(false);
    expect(preparedStatementsFor("true", true)).toBe(true);
    expect(() => loadConfig({ WORKER_PREPARED_STATEMENTS: "yes" })).toThrow(/WORKER_PREPARED_STATEMENTS/);
  });
});

describe("the embedded database is recognised by the server itself", () => {
  it("version() names PGlite there and not on PostgreSQL, so auto never names statements on a shared session", async () => {
    const { rows } = await t.pool.query<{ v: string }>(`SELECT version() AS v`);
    expect(isEmbeddedServer(rows[0].v)).toBe(!onRealPostgres);
    expect(preparedStatementsFor("auto", isEmbeddedServer(rows[0].v))).toBe(onRealPostgres);
  });
});
