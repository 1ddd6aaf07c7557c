import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { seedTasks, expireLease } from "../helpers/seed";
import { claim, complete, isEmbeddedServer, preparedStatementsFor, setPreparedStatements } from "../../lib/queue/engine";
import { loadConfig } from "../../lib/config";
import { LeaseLostError } from "../../lib/queue/errors";
import { withTransaction } from "../../lib/db/pool";

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
    const kinds = (await t.pool.query(`SELECT kind, lease_attempt FROM task_events WHERE task_id = $1 ORDER BY id`, [id])).rows;
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
