import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { rollback } from "../../lib/documents/repository";
import { collectGarbage } from "../../lib/pipeline/run";
import { LocalEmbedder } from "../../lib/embedding";
import { loadConfig } from "../../lib/config";
import { Worker } from "../../worker/loop";

// A task whose switch rolls back (a reused vector was collected in between) starts a second round.
// That round must keep renewing its lease: the heartbeat stops at the switch, and before the fix it
// never came back, so a second round longer than the lease let the lease lapse under a live worker.

let t: TestDb;
let worker: Worker | null = null;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => resetContent(t.pool));
afterEach(async () => {
  await worker?.stop(10_000);
  worker = null;
});

const TENANT = "hb";
const doc = (sections: string[]) => ["# Guide", ...sections.map((s, i) => `## Part ${i}\n\n${s}`)].join("\n\n");
const para = (name: string) =>
  `The ${name} rule says that requests about ${name} go to the ${name} desk and are answered within two working days by the duty team.`;
const pub = (sections: string[], key = "guide") =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: "guide",
    contentType: "text/markdown",
    content: Buffer.from(doc(sections)),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });

/** The local embedder; `once` runs before its next call, and `delayMs` slows every later call. */
class ScriptedEmbedder extends LocalEmbedder {
  once: (() => Promise<void>) | null = null;
  delayMs = 0;
  constructor() {
    super(384);
  }
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    const once = this.once;
    this.once = null;
    if (once) await once();
    else if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.embed(texts, signal);
  }
}

const taskOf = async (version: number, key = "guide") =>
  (
    await t.pool.query<{ status: string; attempts: number }>(
      `SELECT k.status, k.attempts FROM index_tasks k JOIN documents d ON d.id = k.document_id WHERE d.key = $2 AND k.version_number = $1 AND k.task_type = 'INDEX'`,
      [version, key],
    )
  ).rows[0];

/** A worker with 1.5 s leases (renewed every 0.5 s) over `embedder`. */
async function startWorker(id: string, embedder: ScriptedEmbedder, concurrency: number): Promise<Worker> {
  const cfg = loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "1.5", LOG_LEVEL: "silent" });
  const w = new Worker({ pool: t.pool, databaseUrl: t.url, workerId: id, concurrency, cfg, embedder, tasksPerSlot: 8 });
  await w.start();
  return w;
}

/** v1: A B C; v2: A B D (D is stored only in v2); a rollback pins v1 and retires v2. */
async function pinV1OverV2(key: string, delta: string): Promise<void> {
  await pub([para("alpha"), para("beta"), para("gamma")], key);
  await waitFor(async () => (await taskOf(1, key))?.status === "SUCCEEDED");
  await pub([para("alpha"), para("beta"), para(delta)], key);
  await waitFor(async () => (await taskOf(2, key))?.status === "SUCCEEDED");
  await rollback(t.pool, TENANT, key, 1, "test", { subject: "test" }, 24);
}

/**
 * On the embedder's next call, every v2 passes its retention and is collected, and every later
 * call takes `delayMs`. Returns how many versions were collected (-1 until then).
 */
function collectV2OnNextEmbed(embedder: ScriptedEmbedder, delayMs: number): () => number {
  let collected = -1;
  embedder.once = async () => {
    await t.pool.query(`UPDATE index_versions SET retired_at = now() - interval '2 hours' WHERE version_number = 2`);
    collected = await collectGarbage(t.pool, 1);
    embedder.delayMs = delayMs;
  };
  return () => collected;
}

it("a task that starts over after its switch rolled back keeps renewing its lease through the second round", async () => {
  const embedder = new ScriptedEmbedder();
  worker = await startWorker("hb-worker", embedder, 2);
  await pinV1OverV2("guide", "delta");

  // v3: A B D E. Round 1 counts D as stored and embeds E; while it does, v2 passes its retention
  // and is collected, so the switch finds D gone and rolls back. Round 2 embeds D and E slowly:
  // 4.5 s, three lease lengths.
  const collected = collectV2OnNextEmbed(embedder, 4_500);
  await pub([para("alpha"), para("beta"), para("delta"), para("epsilon")]);
  await waitFor(async () => ["SUCCEEDED", "DEAD"].includes((await taskOf(3))?.status ?? ""), 30_000);

  expect(collected()).toBe(1);
  // Done by the lease it was claimed with: the lease never lapsed, nobody took the task over.
  expect(await taskOf(3)).toEqual({ status: "SUCCEEDED", attempts: 1 });
  const events = await t.pool.query<{ kind: string }>(
    `SELECT e.kind FROM task_events e JOIN index_tasks k ON k.task_id = e.task_id WHERE k.version_number = 3 ORDER BY e.id`,
  );
  expect(events.rows.map((r) => r.kind)).toEqual(["CREATED", "CLAIMED", "SUCCEEDED"]);
  expect(worker.stats.lost).toBe(0);
}, 60_000);

it("in a batch, every member sent to run again on its own renews from the failed switch on, not from its turn", async () => {
  const embedder = new ScriptedEmbedder();
  // One slot takes both documents' tasks in one batch.
  worker = await startWorker("hb-batch", embedder, 1);
  const keys = ["guide", "manual"];
  for (const key of keys) await pinV1OverV2(key, `delta-${key}`);
  const collected = collectV2OnNextEmbed(embedder, 3_000);
  // Both v3 wait behind a pause of the tenant, so one claim takes them together.
  await t.pool.query(`INSERT INTO task_pauses (tenant_id, paused_by, reason) VALUES ($1, 'test', 'batch them')`, [
    TENANT,
  ]);
  for (const key of keys) await pub([para("alpha"), para("beta"), para(`delta-${key}`), para(`epsilon-${key}`)], key);
  await t.pool.query(`DELETE FROM task_pauses WHERE tenant_id = $1`, [TENANT]);
  await waitFor(async () => {
    const s = await Promise.all(keys.map(async (k) => (await taskOf(3, k))?.status ?? ""));
    return s.every((x) => ["SUCCEEDED", "DEAD"].includes(x));
  }, 40_000);

  expect(collected()).toBe(2);
  // The second to run again waited through the first one's slow round (3 s, two lease lengths).
  for (const key of keys) expect(await taskOf(3, key), key).toEqual({ status: "SUCCEEDED", attempts: 1 });
  expect(worker.stats.lost).toBe(0);
}, 90_000);
