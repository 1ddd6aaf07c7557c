import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { loadConfig } from "../../lib/config";
import { publish } from "../../lib/documents/publish";
import { LocalEmbedder } from "../../lib/embedding";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import { actOnMigration, getMigration, startMigration } from "../../lib/spaces/repository";
import { advanceMigrations } from "../../lib/spaces/maintenance";
import { personPrincipal } from "../../lib/auth/principal";
import { listEvaluationRuns, putEvaluationSet } from "../../lib/evaluation/repository";
import { runPendingEvaluations } from "../../lib/evaluation/runner";
import { Worker } from "../../worker/loop";

// Every committed switch queues a run of the tenant's set against the space that now serves
// (trigger "switch", the migration named, the default search mode): a switch by hand, a
// switch-back, and an auto-switch by the worker's maintenance. A tenant without a set gets none.

const TENANT = "aftersw";
const BARE = "aftersw-bare";
const SETTINGS = { indexMemoryMb: 64, parallelWorkers: 0 };
// Both spaces use the local embedder; the gate's tolerance is wide open so no switch is refused
// on the small difference the dimensions make (the gate has its own test, gate.test.ts).
const GATE = { tolerance: 1 };
const operator = personPrincipal("ops@example.com", "operator", null);
const spaces = new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });
const TOPICS = ["refund card return", "vacation carry over", "expense receipt euros", "laptop replacement desk"];

let t: TestDb;
let worker: Worker;

async function publishAll(tenant: string) {
  for (let i = 0; i < TOPICS.length; i++)
    await publish(t.pool, {
      tenant,
      key: `policy-${i}`,
      title: `Policy ${i}`,
      contentType: "text/markdown",
      content: Buffer.from(`# Policy ${i}\n\nThis policy is about ${TOPICS[i]}, described step by step.`),
      acl: [],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 3,
    });
}

/** A migration of `tenant` to local-256 that every document reached; READY unless autoSwitch moved it on. */
async function builtMigration(tenant: string, autoSwitch = false): Promise<string> {
  const mig = await startMigration(t.pool, operator, tenant, { space: "local-256", autoSwitch }, 3);
  await waitFor(async () => (await getMigration(t.pool, tenant, mig.id)).documents.built === TOPICS.length, 60_000);
  return mig.id;
}

type SwitchRun = { id: string; state: string; space: string; mode: string; requested_by: string; settings: unknown };
const switchRuns = async (migrationId: string) =>
  (
    await t.pool.query<SwitchRun>(
      `SELECT r.id::text, r.state, s.name AS space, r.mode, r.requested_by, r.settings
         FROM evaluation_runs r JOIN embedding_spaces s ON s.id = r.space_id
        WHERE r.migration_id = $1 AND r.trigger = 'switch' ORDER BY r.id`,
      [migrationId],
    )
  ).rows;

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
    workerId: "aftersw-w",
    concurrency: 2,
    cfg,
    embedder: spaces.preset!,
    spaces,
  });
  await worker.start();
  await publishAll(TENANT);
  await publishAll(BARE);
  await waitFor(
    async () => (await t.pool.query(`SELECT count(*)::int AS n FROM search_pointers`)).rows[0].n === 2 * TOPICS.length,
    60_000,
  );
  await putEvaluationSet(t.pool, operator, TENANT, {
    queries: TOPICS.map((topic, i) => ({ query: topic, relevant: [`policy-${i}`] })),
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop(5_000);
  await t?.close();
});

describe("a run after every switch", () => {
  let migId = "";

  it("a switch by hand queues a run against the new active space, which a worker runs", async () => {
    migId = await builtMigration(TENANT);
    await advanceMigrations(t.pool, "test", SETTINGS, { spaces, ...GATE });
    const m = await actOnMigration(t.pool, operator, TENANT, migId, "switch", null, { spaces, ...GATE });
    expect(m.state).toBe("SWITCHED");
    const [run] = await switchRuns(migId);
    expect(run).toMatchObject({ space: "local-256", mode: "hybrid", requested_by: "user:ops@example.com" });
    expect(run.settings).toMatchObject({ space: { name: "local-256" }, pointers: "active" });
    // The worker's maintenance claims it like a run asked for by hand (or this pass does first).
    await waitFor(async () => {
      await runPendingEvaluations(t.pool, spaces, "test");
      return (await switchRuns(migId))[0].state === "DONE";
    }, 60_000);
    const listed = (await listEvaluationRuns(t.pool, TENANT)).find((r) => r.id === run.id)!;
    expect(listed).toMatchObject({ trigger: "switch", migrationId: migId, space: "local-256", state: "DONE" });
    expect(listed.figures!.ndcgAt10).toBeGreaterThan(0.5);
  }, 120_000);

  it("a switch-back queues one against the previous space", async () => {
    const m = await actOnMigration(t.pool, operator, TENANT, migId, "switch-back", "back");
    expect(m.state).toBe("SWITCHED_BACK");
    const runs = await switchRuns(migId);
    expect(runs.map((r) => r.space)).toEqual(["local-256", "local"]);
    await waitFor(async () => {
      await runPendingEvaluations(t.pool, spaces, "test");
      return (await switchRuns(migId))[1].state === "DONE";
    }, 60_000);
  }, 120_000);

  it("an auto-switch by the worker's maintenance queues one too", async () => {
    const id = await builtMigration(TENANT, true);
    await waitFor(async () => {
      await advanceMigrations(t.pool, "test", SETTINGS, { spaces, ...GATE });
      return (await getMigration(t.pool, TENANT, id)).state === "SWITCHED";
    }, 60_000);
    const runs = await switchRuns(id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ space: "local-256", mode: "hybrid" });
    expect(runs[0].requested_by).toMatch(/\(autoSwitch\)$/);
  }, 120_000);

  it("a tenant without a set gets none", async () => {
    const id = await builtMigration(BARE);
    await advanceMigrations(t.pool, "test", SETTINGS, { spaces, ...GATE });
    await waitFor(async () => (await getMigration(t.pool, BARE, id)).state === "READY", 30_000);
    expect((await actOnMigration(t.pool, operator, BARE, id, "switch", null, { spaces, ...GATE })).state).toBe(
      "SWITCHED",
    );
    expect(await switchRuns(id)).toEqual([]);
  }, 120_000);
});
