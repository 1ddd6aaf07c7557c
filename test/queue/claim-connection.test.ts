import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type pg from "pg";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { resetContent, seedTasks } from "../helpers/seed";
import { waitFor } from "../helpers/worker";
import { complete, setPreparedStatements } from "../../lib/queue/engine";
import { loadConfig } from "../../lib/config";
import { LocalEmbedder } from "../../lib/embedding";
import { Worker } from "../../worker/loop";

// A worker claims through one connection of its own (worker/loop.ts, claimPool): the claim's batch
// size is part of its text, and a named statement is planned afresh on its first five runs on each
// connection, so claims spread over the shared pool were mostly planned rather than run from a
// kept plan. This file checks where the claims go, not how fast they are (bench:queue measures that).
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => resetContent(t.pool));
// The worker's "auto" turns named statements on for PostgreSQL (the case the claim connection is
// for) and off on the embedded database; the setting is module-wide, so it is put back after.
afterEach(() => setPreparedStatements(false));

const claimBackends = async () =>
  (
    await t.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'indexwright-claim'`,
    )
  ).rows[0].n;

/** The statement texts a pool is asked to run, in whichever form the caller passes them. */
function recordTexts(pool: pg.Pool): { texts: string[]; restore: () => void } {
  const texts: string[] = [];
  const original = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const first = args[0];
    texts.push(typeof first === "string" ? first : ((first as { text?: string })?.text ?? ""));
    return original(...args);
  };
  return { texts, restore: () => void ((pool as unknown as { query: unknown }).query = original) };
}

const isClaim = (text: string) => text.includes("FOR UPDATE SKIP LOCKED") && text.includes("claim_events");

/** A worker of 4 slots whose tasks complete their lease and nothing else (named statements as `auto` sets them). */
function noopWorker(id: string, leaseSeconds: number, onDone: () => void = () => undefined, paceMs = 0): Worker {
  return new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: id,
    concurrency: 4,
    preparedStatements: "auto",
    cfg: loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: String(leaseSeconds), LOG_LEVEL: "silent" }),
    embedder: new LocalEmbedder(384),
    tasksPerSlot: 1,
    execute: (p, _e, members) =>
      Promise.all(
        members.map(async ({ lease }) => {
          if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
          await complete(p, lease, null);
          onDone();
          return { status: "fulfilled" as const, value: null };
        }),
      ),
  });
}

const allSucceeded = async () =>
  (await t.pool.query(`SELECT 1 FROM index_tasks WHERE tenant_id = 'claims' AND status <> 'SUCCEEDED' LIMIT 1`))
    .rowCount === 0;

describe("a worker's claims", () => {
  it("go through a connection of their own, never through the shared pool, and that connection ends with the worker", async () => {
    await seedTasks(t.pool, 300, { tenant: "claims" });
    const shared = recordTexts(t.pool);
    const worker = noopWorker("claim-connection", 30);
    let backendsWhileRunning: number | null = null;
    await worker.start();
    try {
      await waitFor(allSucceeded, 30_000);
      if (onRealPostgres) backendsWhileRunning = await claimBackends();
    } finally {
      await worker.stop(1000);
      shared.restore();
    }
    expect(worker.stats.succeeded).toBe(300);
    // Many claims were made (4 slots, 300 tasks), none of them on the shared pool.
    expect(worker.stats.claimed).toBe(300);
    expect(shared.texts.filter(isClaim)).toEqual([]);
    // The completions did go through the shared pool (the recorder saw the worker's statements).
    expect(shared.texts.filter((text) => text.includes("SET status = 'SUCCEEDED'")).length).toBeGreaterThanOrEqual(300);
    if (onRealPostgres) {
      expect(backendsWhileRunning).toBe(1);
      await waitFor(async () => (await claimBackends()) === 0, 5_000);
    }
  });

  it.runIf(onRealPostgres)(
    "survive the claim connection being terminated mid-run: the next claim reconnects and every task still succeeds",
    async () => {
      await seedTasks(t.pool, 600, { tenant: "claims" });
      let done = 0;
      // A short lease: a claim that committed but whose answer died with the connection is taken
      // over (by this worker) a few seconds later rather than after a minute.
      const worker = noopWorker("claim-connection-killed", 3, () => done++, 2);
      await worker.start();
      try {
        await waitFor(async () => done >= 100, 20_000, 5);
        const killed = await waitFor(
          async () =>
            (
              await t.pool.query(
                `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'indexwright-claim'`,
              )
            ).rowCount,
          5_000,
          5,
        );
        expect(killed).toBe(1);
        await waitFor(allSucceeded, 30_000);
        // A new claim connection took over from the terminated one (it exists between claims; right
        // after a failed claim it may be missing for the loop's back-off, hence the wait).
        await waitFor(async () => (await claimBackends()) === 1, 5_000);
      } finally {
        await worker.stop(1000);
      }
      expect(done).toBeGreaterThanOrEqual(600);
      const states = (
        await t.pool.query<{ status: string; n: number }>(
          `SELECT status, count(*)::int AS n FROM index_tasks WHERE tenant_id = 'claims' GROUP BY status`,
        )
      ).rows;
      expect(states).toEqual([{ status: "SUCCEEDED", n: 600 }]);
    },
  );
});
