import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { resetContent } from "../helpers/seed";
import { spaceFor } from "../helpers/spaces";
import { spawnWorker } from "../helpers/process";
import { waitFor, longDocument } from "../helpers/worker";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider";
import { publish } from "../../lib/documents/publish";
import { getDocument, reindex } from "../../lib/documents/repository";
import { retryTask } from "../../lib/operations/repository";
import { search, type SearchHit } from "../../lib/search/search";
import { LocalEmbedder, OpenAIEmbedder } from "../../lib/embedding";
import type { Embedder } from "../../lib/embedding/types";
import { loadConfig } from "../../lib/config";
import { Worker } from "../../worker/loop";

// The fault matrix of the seed write-up, one `it` per row. Every row runs a concurrent reader
// (observe()) for its whole length that keeps calling the real search() and checking, in one SQL
// snapshot, that whatever a pointer names is a complete ACTIVE index version whose task has
// SUCCEEDED; at the end it must have seen no violation. Then each row checks the end state the
// dashboard shows: document state, business/search version, last error, the index versions, the
// task's status and event timeline, and attempts <= max_attempts.
//
// Workers are real OS processes (spawnWorker) where the fault is a process dying or its database
// connections being cut, and in-process Workers (the same loop) where a process adds nothing.
// Embeddings come from the OpenAI-compatible fake provider over real HTTP; the reader embeds its
// queries locally with the same vectors and model name, so it never depends on the provider's mood.

const ROOT = path.resolve(import.meta.dirname, "../..");
const TENANT = "fm";
const DIMS = 384;
const MODEL = "fake-embed";
const KEY = "sk-test-fault-matrix-0123456789";
const TOKEN = "fault-matrix-bootstrap-token-0123456789";
/** Application name of spawned workers' connections: the database-kill row terminates exactly these. */
const WORKER_APP = "iw-fault-worker";

let t: TestDb;
let fake: FakeProvider;
const timings: Record<string, number> = {};
/** Every process a row starts; one a failed row leaves behind is killed before the next. */
const children = new Set<ChildProcess>();

beforeAll(async () => {
  t = await createTestDb();
  fake = await startFakeProvider({ dimensions: DIMS, apiKey: KEY });
});
afterAll(async () => {
  console.log(`[fault-matrix] wall time per row (ms): ${JSON.stringify(timings)}`);
  await fake?.close();
  await t?.close();
});
beforeEach(async () => {
  fake.reset();
  await resetContent(t.pool);
  // The fake provider's index space is every tenant's and the default, as a worker started with
  // providerEnv() registers it; its start then finds it and changes nothing.
  await spaceFor(t.pool, { model: MODEL, dimensions: DIMS }, { asDefault: true, allTenants: true });
});
afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  children.clear();
});

// ---- workers ------------------------------------------------------------------------------------

/** Short leases and fast polling keep every row to a few seconds. */
const TIMING = {
  LEASE_SECONDS: "2",
  HEARTBEAT_SECONDS: "0.5",
  POLL_INTERVAL_MS: "50",
  RETRY_BASE_SECONDS: "0.2",
  RETRY_MAX_SECONDS: "10",
  EMBED_BATCH_SIZE: "4",
};
const providerEnv = () => ({
  EMBEDDING_PROVIDER: "openai",
  OPENAI_API_KEY: KEY,
  OPENAI_BASE_URL: fake.url,
  EMBEDDING_MODEL: MODEL,
  EMBEDDING_DIMENSIONS: String(DIMS),
  EMBEDDING_TIMEOUT_MS: "10000",
});
const providerEmbedder = () =>
  new OpenAIEmbedder({ apiKey: KEY, baseURL: fake.url, model: MODEL, dimensions: DIMS, timeoutMs: 10_000 });
/** The fake provider's vectors (embedLocal) under its model name, without HTTP. */
const localEmbedder = () => new LocalEmbedder(DIMS, MODEL);

function inProcessWorker(
  id: string,
  env: Record<string, string> = {},
  embedder: Embedder = providerEmbedder(),
): Worker {
  const cfg = loadConfig({ ...TIMING, LOG_LEVEL: "silent", ...providerEnv(), ...env });
  return new Worker({ pool: t.pool, databaseUrl: t.url, workerId: id, concurrency: 1, cfg, embedder });
}

/** A worker process whose every connection carries WORKER_APP as its application_name. */
function workerProcess(id: string, env: Record<string, string> = {}) {
  const url = new URL(t.url);
  url.searchParams.set("application_name", WORKER_APP);
  const child = spawnWorker(url.toString(), id, { ...TIMING, ...providerEnv(), ...env }, 1);
  children.add(child);
  return child;
}

/** A slow local embedder in the fake's embedding space (same vectors, same model name). */
class SlowLocalEmbedder extends LocalEmbedder {
  calls = 0;
  constructor(private readonly delayMs: number) {
    super(DIMS, MODEL);
  }
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    this.calls++;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, this.delayMs);
      signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
    return super.embed(texts, signal);
  }
}

// ---- documents and end state ---------------------------------------------------------------------

const pub = (key: string, content: string, maxAttempts = 8) =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(content),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts,
  });

/** A document whose every section carries `marker`, so a query for it finds this version's text. */
const doc = (sections: number, marker: string) =>
  longDocument(sections, marker).replace(/explains rule/g, `${marker} explains rule`);

const task = async (id: string | null) =>
  (await t.pool.query(`SELECT * FROM index_tasks WHERE task_id = $1`, [id])).rows[0];
const statusOf = async (id: string | null) => (await task(id))?.status as string | undefined;
const untilStatus = (id: string | null, status: string, ms = 30_000) =>
  waitFor(async () => (await statusOf(id)) === status, ms);

type Event = {
  kind: string;
  actor: string;
  lease_attempt: number | null;
  error_code: string | null;
  detail: Record<string, unknown> | null;
  at: Date;
};
const timeline = async (taskId: string | null): Promise<Event[]> =>
  (
    await t.pool.query(
      `SELECT kind, actor, lease_attempt, error_code, detail, at FROM task_events WHERE task_id = $1 ORDER BY id`,
      [taskId],
    )
  ).rows;
const brief = (ev: Event[]) => ev.map((e) => [e.kind, e.actor, e.lease_attempt]);

async function indexVersions(key: string) {
  return (
    await t.pool.query<{
      id: string;
      version_number: number;
      status: string;
      chunk_count: number | null;
      expected_chunk_count: number;
    }>(
      `SELECT iv.id, iv.version_number, iv.status, iv.chunk_count, iv.expected_chunk_count
         FROM index_versions iv JOIN documents d ON d.id = iv.document_id
        WHERE d.tenant_id = $1 AND d.key = $2 ORDER BY iv.created_at`,
      [TENANT, key],
    )
  ).rows;
}

const chunkIdsOf = async (indexVersionId: string) =>
  (
    await t.pool.query<{ chunk_id: string }>(
      `SELECT chunk_id FROM chunks WHERE index_version_id = $1 ORDER BY ordinal`,
      [indexVersionId],
    )
  ).rows.map((r) => r.chunk_id);

/** Invariants every row ends with: attempts within budget, one complete ACTIVE version per pointer, no duplicate chunks. */
async function expectStoreConsistent() {
  const over = await t.pool.query(
    `SELECT task_id, attempts, max_attempts FROM index_tasks WHERE attempts > max_attempts`,
  );
  expect(over.rows).toEqual([]);
  const dup = await t.pool.query(
    `SELECT count(*)::int AS n, count(DISTINCT (index_version_id, chunk_id))::int AS d FROM chunks`,
  );
  expect(dup.rows[0].n).toBe(dup.rows[0].d);
  const active = await t.pool.query(
    `SELECT iv.document_id, count(*)::int AS n FROM index_versions iv WHERE iv.status = 'ACTIVE' GROUP BY iv.document_id HAVING count(*) <> 1`,
  );
  expect(active.rows).toEqual([]);
  const incomplete = await t.pool.query(
    `SELECT iv.id FROM index_versions iv WHERE iv.status IN ('ACTIVE', 'RETIRED')
        AND (iv.chunk_count IS DISTINCT FROM iv.expected_chunk_count
             OR iv.expected_chunk_count <> (SELECT count(*) FROM chunks c WHERE c.index_version_id = iv.id))`,
  );
  expect(incomplete.rows).toEqual([]);
}

// ---- the concurrent reader -------------------------------------------------------------------------

type Sighting = { at: number; key: string; version: number };
type Observation = {
  probes: number;
  searches: number;
  hits: number;
  sightings: Sighting[];
  violations: string[];
  errors: string[];
};

/**
 * Reads while a row runs, as a search user and as an auditor would:
 * - search() for each query: the hits of one document all come from one version, and every hit
 *   is a chunk of a complete (chunk_count = expected, ACTIVE or since RETIRED) index version of
 *   that document version whose INDEX/REINDEX task has SUCCEEDED;
 * - one SQL snapshot: every pointer names an ACTIVE index version of the pointer's version with
 *   chunk_count = expected_chunk_count = its real chunk count, no duplicate chunk ids, exactly one
 *   ACTIVE version per document, no ACTIVE version without a pointer, and a SUCCEEDED task behind it;
 * - a pointer's version never goes backwards.
 */
function observe(queries: string[], embedder: Embedder = localEmbedder()) {
  const o: Observation = { probes: 0, searches: 0, hits: 0, sightings: [], violations: [], errors: [] };
  const lastPointer = new Map<string, number>();
  let stopped = false;

  const checkPointers = async () => {
    const { rows } = await t.pool.query<{ pointers: Record<string, unknown>[]; orphans: number }>(
      `WITH p AS (
         SELECT d.key, sp.version_number AS pointer_version, iv.version_number AS iv_version, iv.status,
                iv.chunk_count, iv.expected_chunk_count,
                (SELECT count(*) FROM chunks c WHERE c.index_version_id = iv.id)::int AS n,
                (SELECT count(DISTINCT c.chunk_id) FROM chunks c WHERE c.index_version_id = iv.id)::int AS distinct_ids,
                (SELECT count(*) FROM index_versions x WHERE x.document_id = d.id AND x.status = 'ACTIVE')::int AS active,
                EXISTS (SELECT 1 FROM index_tasks k WHERE k.document_id = d.id AND k.version_number = sp.version_number
                           AND k.task_type IN ('INDEX', 'REINDEX') AND k.status = 'SUCCEEDED') AS succeeded
           FROM search_pointers sp
           JOIN documents d ON d.id = sp.document_id
           LEFT JOIN index_versions iv ON iv.id = sp.index_version_id
          WHERE d.tenant_id = $1)
       SELECT coalesce((SELECT json_agg(p) FROM p), '[]'::json) AS pointers,
              (SELECT count(*) FROM index_versions iv WHERE iv.tenant_id = $1 AND iv.status = 'ACTIVE'
                  AND NOT EXISTS (SELECT 1 FROM search_pointers sp WHERE sp.index_version_id = iv.id))::int AS orphans`,
      [TENANT],
    );
    const { pointers, orphans } = rows[0];
    if (orphans !== 0) o.violations.push(`${orphans} ACTIVE index version(s) without a pointer`);
    for (const p of pointers as {
      key: string;
      pointer_version: number;
      iv_version: number | null;
      status: string | null;
      chunk_count: number | null;
      expected_chunk_count: number | null;
      n: number;
      distinct_ids: number;
      active: number;
      succeeded: boolean;
    }[]) {
      const bad = [
        p.status !== "ACTIVE" && `status ${p.status}`,
        p.iv_version !== p.pointer_version && `index version of v${p.iv_version}`,
        p.chunk_count !== p.expected_chunk_count &&
          `chunk_count ${p.chunk_count} != expected ${p.expected_chunk_count}`,
        p.n !== p.expected_chunk_count && `${p.n} chunk rows != expected ${p.expected_chunk_count}`,
        p.distinct_ids !== p.n && `${p.n - p.distinct_ids} duplicate chunk ids`,
        p.active !== 1 && `${p.active} ACTIVE versions`,
        !p.succeeded && `no SUCCEEDED task for v${p.pointer_version}`,
      ].filter(Boolean);
      if (bad.length) o.violations.push(`pointer of ${p.key} -> v${p.pointer_version}: ${bad.join(", ")}`);
      const before = lastPointer.get(p.key);
      if (before !== undefined && p.pointer_version < before)
        o.violations.push(`pointer of ${p.key} went back from v${before} to v${p.pointer_version}`);
      lastPointer.set(p.key, p.pointer_version);
    }
  };

  const checkSearch = async (query: string) => {
    const hits: SearchHit[] = await search(t.pool, embedder, { tenant: TENANT, query, topK: 10, principals: [] });
    o.searches++;
    o.hits += hits.length;
    const at = Date.now();
    const byDoc = new Map<string, Set<number>>();
    for (const h of hits) {
      byDoc.set(h.documentKey, (byDoc.get(h.documentKey) ?? new Set()).add(h.versionNumber));
      o.sightings.push({ at, key: h.documentKey, version: h.versionNumber });
    }
    for (const [key, versions] of byDoc)
      if (versions.size > 1)
        o.violations.push(`search "${query}": ${key} answered from versions ${[...versions].join(", ")}`);
    if (hits.length === 0) return;
    const unbacked = await t.pool.query(
      `SELECT h.key, h.v, h.chunk FROM unnest($2::text[], $3::int[], $4::text[]) AS h(key, v, chunk)
        WHERE NOT EXISTS (
          SELECT 1 FROM documents d
            JOIN index_versions iv ON iv.document_id = d.id
            JOIN chunks c ON c.index_version_id = iv.id
           WHERE d.tenant_id = $1 AND d.key = h.key AND iv.version_number = h.v AND c.chunk_id = h.chunk
             AND iv.status IN ('ACTIVE', 'RETIRED') AND iv.chunk_count = iv.expected_chunk_count
             AND EXISTS (SELECT 1 FROM index_tasks k WHERE k.document_id = d.id AND k.version_number = h.v
                            AND k.task_type IN ('INDEX', 'REINDEX') AND k.status = 'SUCCEEDED'))`,
      [TENANT, hits.map((h) => h.documentKey), hits.map((h) => h.versionNumber), hits.map((h) => h.chunkId)],
    );
    for (const r of unbacked.rows)
      o.violations.push(
        `search "${query}": hit ${r.key} v${r.v} chunk ${r.chunk} is not from a complete, succeeded index version`,
      );
  };

  const done = (async () => {
    while (!stopped) {
      try {
        await checkPointers();
        for (const q of queries) await checkSearch(q);
      } catch (err) {
        o.errors.push((err as Error).message);
      }
      o.probes++;
      await new Promise((r) => setTimeout(r, 15));
    }
  })();

  return {
    o,
    /** Stops after one more complete probe, so the end state is read at least once. */
    async stop(): Promise<Observation> {
      const target = o.probes + 1;
      await waitFor(async () => o.probes > target, 10_000, 10);
      stopped = true;
      await done;
      return o;
    },
  };
}

function expectCleanObservation(o: Observation, minProbes = 5) {
  expect(o.violations).toEqual([]);
  expect(o.errors).toEqual([]);
  expect(o.probes).toBeGreaterThanOrEqual(minProbes);
  expect(o.hits).toBeGreaterThan(0);
}

const versionsSeen = (o: Observation, key: string, until = Infinity) =>
  [...new Set(o.sightings.filter((s) => s.key === key && s.at < until).map((s) => s.version))].sort((a, b) => a - b);

/** Runs one row and records its wall time. */
function row(name: string, fn: () => Promise<void>, timeoutMs = 60_000, runIf = true) {
  it.runIf(runIf)(
    name,
    async () => {
      const t0 = Date.now();
      try {
        await fn();
      } finally {
        timings[name.split(":")[0]] = Date.now() - t0;
      }
    },
    timeoutMs,
  );
}

// ---- the publish route in its own process --------------------------------------------------------

type PublishServer = ChildProcess & {
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  logs: () => string;
};

async function publishServer(env: Record<string, string>): Promise<PublishServer> {
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", path.join(ROOT, "test/faults/publish-server.ts")],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: t.url, INDEXWRIGHT_BOOTSTRAP_TOKEN: TOKEN, LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  ) as PublishServer;
  children.add(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  child.logs = () => out;
  child.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const port = await waitFor(
    async () => /listening (\d+)/.exec(out)?.[1] ?? (child.exitCode !== null ? Promise.reject(new Error(out)) : null),
    30_000,
  );
  child.url = `http://127.0.0.1:${port}`;
  return child;
}

const publishOverHttp = (server: PublishServer, key: string, content: string, idempotencyKey: string) =>
  fetch(`${server.url}/api/v1/tenants/${TENANT}/documents/${key}/versions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "idempotency-key": idempotencyKey,
    },
    body: JSON.stringify({ title: key, contentType: "text/markdown", content }),
  });

// ---- the matrix ------------------------------------------------------------------------------------

describe("fault matrix (seed 001)", () => {
  row(
    "publish dies after commit: the version and its task are durable; the client's retry with the same Idempotency-Key gets the first answer, nothing twice",
    async () => {
      const w = inProcessWorker("fm-publish");
      await w.start();
      const reader = observe(["harbour crane schedule"]);
      try {
        // Two servers with the fault armed, started together: the first dies, the second takes the retry.
        const [server, again] = await Promise.all([
          publishServer({ FAULT_AFTER_PUBLISH_COMMIT: "1" }),
          publishServer({ FAULT_AFTER_PUBLISH_COMMIT: "1" }),
        ]);
        const content = doc(6, "harbour crane schedule");
        // The process exits between COMMIT and the answer: the client sees the connection drop.
        await expect(publishOverHttp(server, "crane", content, "req-crane-1")).rejects.toThrow();
        expect((await server.exited).code, server.logs()).toBe(137);
        expect(server.logs()).toContain("FAULT_AFTER_PUBLISH_COMMIT");

        const committed = (
          await t.pool.query(
            `SELECT version_number FROM document_versions dv JOIN documents d ON d.id = dv.document_id WHERE d.key = 'crane'`,
          )
        ).rows;
        expect(committed).toEqual([{ version_number: 1 }]);
        const tasks = (await t.pool.query(`SELECT task_id::text, task_type, version_number FROM index_tasks`)).rows;
        expect(tasks).toHaveLength(1);

        // A client that never got its answer retries with the same key. The fault is still armed,
        // but a replay commits nothing new, so it answers: the stored first answer.
        const res = await publishOverHttp(again, "crane", content, "req-crane-1");
        expect(res.status).toBe(202);
        expect(res.headers.get("idempotent-replayed")).toBe("true");
        expect(await res.json()).toMatchObject({ versionNumber: 1, taskId: tasks[0].task_id });
        again.kill("SIGTERM");
        await again.exited;
        expect((await t.pool.query(`SELECT count(*)::int AS n FROM document_versions`)).rows[0].n).toBe(1);
        expect((await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks`)).rows[0].n).toBe(1);

        await untilStatus(tasks[0].task_id, "SUCCEEDED");
        await waitFor(async () => versionsSeen(reader.o, "crane").includes(1));
      } finally {
        await w.stop(3000);
      }
      expectCleanObservation(await reader.stop());
      const d = await getDocument(t.pool, TENANT, "crane");
      expect(d).toMatchObject({ state: "SEARCHABLE", businessVersion: 1, searchVersion: 1, lastError: null });
      expect(d!.tasks).toHaveLength(1);
      expect(d!.tasks[0]).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
      expect(brief(await timeline(d!.tasks[0].taskId)).map((e) => e[0])).toEqual(["CREATED", "CLAIMED", "SUCCEEDED"]);
      expect((await indexVersions("crane")).map((v) => v.status)).toEqual(["ACTIVE"]);
      await expectStoreConsistent();
    },
  );

  /**
   * The two process-death rows share a shape: v1 serves, v2's worker process dies on a fault
   * switch, v1 keeps serving (and v2's text never shows) until another worker takes the task over
   * after the lease and switches to v2.
   */
  async function processDiesMidTask(fault: Record<string, string>, name: string) {
    const seed = inProcessWorker(`${name}-seed`);
    await seed.start();
    const v1 = await pub("handbook", doc(12, "granite"));
    await untilStatus(v1.taskId, "SUCCEEDED");
    await seed.stop(3000);
    fake.reset();

    const reader = observe(["granite explains rule", "zeppelin hangar explains rule"]);
    const v2 = await pub("handbook", doc(12, "zeppelin hangar"));
    const doomed = workerProcess(`${name}-doomed`, fault);
    const exit = await doomed.exited;
    const crashedAt = Date.now();
    expect(exit.code, doomed.logs()).toBe(137);

    // Between the crash and the takeover: v1 serves, v2 is still RUNNING under the dead lease.
    expect(await task(v2.taskId)).toMatchObject({ status: "RUNNING", lease_owner: `${name}-doomed`, attempts: 1 });
    const during = await getDocument(t.pool, TENANT, "handbook");
    expect(during).toMatchObject({ state: "UPDATING", businessVersion: 2, searchVersion: 1 });
    const requestsBeforeRescue = fake.requests;

    const rescue = inProcessWorker(`${name}-rescue`);
    await rescue.start();
    try {
      await untilStatus(v2.taskId, "SUCCEEDED");
      await waitFor(async () => versionsSeen(reader.o, "handbook").includes(2));
    } finally {
      await rescue.stop(3000);
    }
    const o = await reader.stop();
    expectCleanObservation(o);
    expect(versionsSeen(o, "handbook", crashedAt)).toEqual([1]);

    const d = await getDocument(t.pool, TENANT, "handbook");
    expect(d).toMatchObject({ state: "SEARCHABLE", businessVersion: 2, searchVersion: 2, lastError: null });
    expect(brief(await timeline(v2.taskId))).toEqual([
      ["CREATED", "test", null],
      ["CLAIMED", `${name}-doomed`, 1],
      ["LEASE_TAKEN_OVER", `${name}-rescue`, 2],
      ["SUCCEEDED", `${name}-rescue`, 2],
    ]);
    expect(await task(v2.taskId)).toMatchObject({ status: "SUCCEEDED", attempts: 2, max_attempts: 8 });
    const ivs = await indexVersions("handbook");
    expect(ivs.map((v) => [v.version_number, v.status])).toEqual([
      [1, "RETIRED"],
      [2, "ACTIVE"],
    ]);
    await expectStoreConsistent();
    return { requestsBeforeRescue, rescueBatches: (await task(v2.taskId)).batches_sent as number };
  }

  row(
    "worker dies after n embedding batches (FAULT_AFTER_CHUNK_BATCH=2): v1 keeps serving, the task is taken over after the lease and succeeds once",
    async () => {
      const { requestsBeforeRescue } = await processDiesMidTask({ FAULT_AFTER_CHUNK_BATCH: "2" }, "batches");
      // It died right after its second batch: exactly two provider calls, nothing written.
      expect(requestsBeforeRescue).toBe(2);
    },
  );

  row(
    "worker dies before the switch (FAULT_BEFORE_INDEX_SWITCH=1): the open switch transaction rolls back, v1 keeps serving, the takeover switches to v2",
    async () => {
      const { requestsBeforeRescue, rescueBatches } = await processDiesMidTask(
        { FAULT_BEFORE_INDEX_SWITCH: "1" },
        "switch",
      );
      // All of v2 was embedded before it died inside the transaction; none of it was kept, so the
      // rescuer embedded it all again.
      expect(requestsBeforeRescue).toBeGreaterThanOrEqual(3);
      expect(rescueBatches).toBe(requestsBeforeRescue);
    },
  );

  row(
    "worker dies after the write but before the acknowledgement: write, switch and completion are one transaction, so there is no such window; a second execution of the same version yields the same chunk ids",
    async () => {
      const reader = observe(["lighthouse keeper explains rule"]);
      const v1 = await pub("lighthouse", doc(8, "lighthouse keeper"));
      // Killed inside the switch transaction, after the chunk rows and the pointer were written and
      // before complete() and COMMIT: the latest point a crash can hit.
      const doomed = workerProcess("ack-doomed", { FAULT_BEFORE_INDEX_SWITCH: "1" });
      expect((await doomed.exited).code, doomed.logs()).toBe(137);
      // Nothing of the write survived: no index version, no chunk, no pointer; the task is still
      // RUNNING under the dead lease, so the document reads "indexing", not "searchable".
      expect((await t.pool.query(`SELECT count(*)::int AS n FROM index_versions`)).rows[0].n).toBe(0);
      expect((await t.pool.query(`SELECT count(*)::int AS n FROM chunks`)).rows[0].n).toBe(0);
      expect((await t.pool.query(`SELECT count(*)::int AS n FROM search_pointers`)).rows[0].n).toBe(0);
      expect(await task(v1.taskId)).toMatchObject({ status: "RUNNING", attempts: 1 });
      expect(await getDocument(t.pool, TENANT, "lighthouse")).toMatchObject({ state: "INDEXING", searchVersion: null });

      const w = inProcessWorker("ack-rescue");
      await w.start();
      try {
        await untilStatus(v1.taskId, "SUCCEEDED");
        const [first] = await indexVersions("lighthouse");
        const ids = await chunkIdsOf(first.id);
        expect(ids.length).toBe(first.expected_chunk_count);

        // Second execution, the identical re-publish: the same version and the same (finished)
        // task come back; nothing is queued or embedded again.
        const before = fake.requests;
        const same = await pub("lighthouse", doc(8, "lighthouse keeper"));
        expect(same).toMatchObject({ created: false, versionNumber: 1, taskId: v1.taskId });
        expect((await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks`)).rows[0].n).toBe(1);

        // Second execution, operator-forced: a REINDEX of the same version rebuilds it from scratch.
        // Same chunk ids (they hash tenant, document, version, chunker, ordinal and content), every
        // embedding reused, no duplicate rows, and the pointer stays on version 1.
        const rx = await reindex(t.pool, TENANT, "lighthouse", { subject: "ops" }, 8);
        await untilStatus(rx.taskId, "SUCCEEDED");
        expect(fake.requests).toBe(before);
        const ivs = await indexVersions("lighthouse");
        expect(ivs.map((v) => [v.version_number, v.status])).toEqual([
          [1, "RETIRED"],
          [1, "ACTIVE"],
        ]);
        expect(await chunkIdsOf(ivs[1].id)).toEqual(ids);
        expect(await task(rx.taskId)).toMatchObject({
          chunks_total: ids.length,
          chunks_reused: ids.length,
          batches_sent: 0,
        });
        await waitFor(async () => versionsSeen(reader.o, "lighthouse").includes(1));
      } finally {
        await w.stop(3000);
      }
      expectCleanObservation(await reader.stop());
      expect(await getDocument(t.pool, TENANT, "lighthouse")).toMatchObject({
        state: "SEARCHABLE",
        businessVersion: 1,
        searchVersion: 1,
        lastError: null,
      });
      expect(brief(await timeline(v1.taskId))).toEqual([
        ["CREATED", "test", null],
        ["CLAIMED", "ack-doomed", 1],
        ["LEASE_TAKEN_OVER", "ack-rescue", 2],
        ["SUCCEEDED", "ack-rescue", 2],
      ]);
      await expectStoreConsistent();
    },
  );

  row(
    "heartbeat dropped (FAULT_DROP_LEASE_HEARTBEAT=1): the lease expires, another worker takes over and finishes, the first worker is fenced off and writes nothing",
    async () => {
      const lease = { LEASE_SECONDS: "1", HEARTBEAT_SECONDS: "0.25" };
      const slow = new SlowLocalEmbedder(700); // 17 chunks in batches of 4: ≈ 3.5 s, 3.5 lease lengths
      const dropper = inProcessWorker("dropper", { ...lease, FAULT_DROP_LEASE_HEARTBEAT: "1" }, slow);
      const rescuer = inProcessWorker("rescuer", lease, localEmbedder());
      const reader = observe(["quarry explains rule"]);
      const r = await pub("quarry", doc(16, "quarry"));
      await dropper.start();
      try {
        await waitFor(async () => (await task(r.taskId)).lease_owner === "dropper");
        await rescuer.start();
        await untilStatus(r.taskId, "SUCCEEDED");
        await waitFor(async () => versionsSeen(reader.o, "quarry").includes(1));
      } finally {
        // The dropper runs on to its next fence check (before a batch, or the switch) and stops there.
        await dropper.stop(10_000);
        await rescuer.stop(3000);
      }
      expectCleanObservation(await reader.stop());
      expect(dropper.stats.succeeded).toBe(0);
      // It stopped at its first fence check after the lease ran out (one runs before every
      // embedding batch), long before the end of its embedding work: nothing of it was written.
      expect(slow.calls).toBeGreaterThan(0);
      expect(slow.calls).toBeLessThan((await task(r.taskId)).batches_sent);
      expect(brief(await timeline(r.taskId))).toEqual([
        ["CREATED", "test", null],
        ["CLAIMED", "dropper", 1],
        ["LEASE_TAKEN_OVER", "rescuer", 2],
        ["SUCCEEDED", "rescuer", 2],
      ]);
      expect(await getDocument(t.pool, TENANT, "quarry")).toMatchObject({
        state: "SEARCHABLE",
        businessVersion: 1,
        searchVersion: 1,
        lastError: null,
      });
      expect(await task(r.taskId)).toMatchObject({ status: "SUCCEEDED", attempts: 2 });
      expect((await indexVersions("quarry")).map((v) => v.status)).toEqual(["ACTIVE"]);
      await expectStoreConsistent();
    },
  );

  row(
    "provider 429 for a while (Retry-After: 2): each retry waits at least Retry-After, not the 0.2 s backoff, then the task succeeds",
    async () => {
      const w = inProcessWorker("rate-limited");
      const reader = observe(["orchard explains rule"]);
      fake.mode("429", { times: 2, retryAfter: "2" });
      const r = await pub("orchard", doc(3, "orchard"));
      await w.start();
      try {
        await waitFor(async () => (await task(r.taskId)).status === "RETRY_WAIT");
        // While it waits, the dashboard says why.
        expect(await getDocument(t.pool, TENANT, "orchard")).toMatchObject({
          state: "INDEXING",
          lastError: { code: "EMBEDDING_RATE_LIMITED" },
        });
        await untilStatus(r.taskId, "SUCCEEDED");
        await waitFor(async () => versionsSeen(reader.o, "orchard").includes(1));
      } finally {
        await w.stop(3000);
      }
      expectCleanObservation(await reader.stop());
      const ev = await timeline(r.taskId);
      expect(brief(ev)).toEqual([
        ["CREATED", "test", null],
        ["CLAIMED", "rate-limited", 1],
        ["FAILED", "rate-limited", 1],
        ["RETRY_SCHEDULED", "rate-limited", 1],
        ["CLAIMED", "rate-limited", 2],
        ["FAILED", "rate-limited", 2],
        ["RETRY_SCHEDULED", "rate-limited", 2],
        ["CLAIMED", "rate-limited", 3],
        ["SUCCEEDED", "rate-limited", 3],
      ]);
      for (const e of ev.filter((x) => x.kind === "FAILED")) expect(e.error_code).toBe("EMBEDDING_RATE_LIMITED");
      // next_attempt_at − failure time ≥ Retry-After (both from the database clock, same transaction).
      const waits = ev
        .filter((x) => x.kind === "RETRY_SCHEDULED")
        .map((x) => Date.parse(String(x.detail!.nextAttemptAt)) - x.at.getTime());
      for (const ms of waits) {
        expect(ms).toBeGreaterThanOrEqual(2000);
        expect(ms).toBeLessThan(3000);
      }
      // And the provider really was left alone that long.
      expect(fake.arrivals).toHaveLength(3);
      for (let i = 1; i < 3; i++) expect(fake.arrivals[i] - fake.arrivals[i - 1]).toBeGreaterThanOrEqual(1950);
      expect(await getDocument(t.pool, TENANT, "orchard")).toMatchObject({
        state: "SEARCHABLE",
        searchVersion: 1,
        lastError: null,
      });
      expect(await task(r.taskId)).toMatchObject({ status: "SUCCEEDED", attempts: 3, max_attempts: 8 });
      await expectStoreConsistent();
    },
  );

  row(
    "provider down longer than the retry budget: DEAD with EMBEDDING_PROVIDER_UNAVAILABLE after max_attempts, the old version keeps serving, FAILED is shown; operator retry after recovery succeeds",
    async () => {
      const w = inProcessWorker("outage");
      await w.start();
      const reader = observe(["meadow explains rule", "tundra explains rule"]);
      try {
        const v1 = await pub("meadow", doc(3, "meadow"));
        await untilStatus(v1.taskId, "SUCCEEDED");
        fake.reset();
        fake.mode("503");
        const v2 = await pub("meadow", doc(3, "tundra"), 3);
        await untilStatus(v2.taskId, "DEAD");
        expect(await task(v2.taskId)).toMatchObject({
          status: "DEAD",
          error_code: "EMBEDDING_PROVIDER_UNAVAILABLE",
          attempts: 3,
          max_attempts: 3,
        });
        expect(fake.requests).toBe(3); // one call per attempt: the SDK does not retry behind the engine's back
        expect(brief(await timeline(v2.taskId)).map(([kind, , attempt]) => [kind, attempt])).toEqual([
          ["CREATED", null],
          ["CLAIMED", 1],
          ["FAILED", 1],
          ["RETRY_SCHEDULED", 1],
          ["CLAIMED", 2],
          ["FAILED", 2],
          ["RETRY_SCHEDULED", 2],
          ["CLAIMED", 3],
          ["FAILED", 3],
          ["DEAD", 3],
        ]);
        const failed = await getDocument(t.pool, TENANT, "meadow");
        expect(failed).toMatchObject({
          state: "FAILED",
          businessVersion: 2,
          searchVersion: 1,
          lastError: { code: "EMBEDDING_PROVIDER_UNAVAILABLE" },
        });
        expect(failed!.lastError!.message).toMatch(/503/);
        expect(failed!.lastError!.message).not.toContain(KEY);
        // The old version keeps answering.
        const hits = await search(t.pool, localEmbedder(), {
          tenant: TENANT,
          query: "meadow explains rule",
          topK: 3,
          principals: [],
        });
        expect(hits[0]).toMatchObject({ documentKey: "meadow", versionNumber: 1 });

        // The provider recovers; an operator retries the dead task with a fresh budget of 3.
        fake.mode("ok");
        await retryTask(t.pool, v2.taskId!, { subject: "ops" }, "provider recovered", 3, null);
        await untilStatus(v2.taskId, "SUCCEEDED");
        await waitFor(async () => versionsSeen(reader.o, "meadow").includes(2));
        expect(await task(v2.taskId)).toMatchObject({
          status: "SUCCEEDED",
          attempts: 4,
          max_attempts: 6,
          error_code: null,
        });
        const tail = brief(await timeline(v2.taskId)).slice(-3);
        expect(tail).toEqual([
          ["OPERATOR_RETRY", "ops", null],
          ["CLAIMED", "outage", 4],
          ["SUCCEEDED", "outage", 4],
        ]);
      } finally {
        await w.stop(3000);
      }
      expectCleanObservation(await reader.stop());
      expect(await getDocument(t.pool, TENANT, "meadow")).toMatchObject({
        state: "SEARCHABLE",
        businessVersion: 2,
        searchVersion: 2,
        lastError: null,
      });
      expect((await indexVersions("meadow")).map((v) => [v.version_number, v.status])).toEqual([
        [1, "RETIRED"],
        [2, "ACTIVE"],
      ]);
      await expectStoreConsistent();
    },
  );

  row(
    "database connection killed mid-task (pg_terminate_backend): the worker process survives, reconnects, and the task succeeds once",
    async () => {
      const killWorkerConnections = async () =>
        (
          await t.pool.query<{ pid: number }>(
            // pg_terminate_backend in the select list runs only for the rows the WHERE kept.
            `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
            [WORKER_APP],
          )
        ).rowCount ?? 0;
      const reader = observe(["glacier explains rule", "delta explains rule"]);
      fake.mode("slow", { delayMs: 600 });
      const r = await pub("glacier", doc(12, "glacier"));
      const w = workerProcess("survivor");
      // Fails at once, with the worker's output, if the process died.
      const untilAlive = (taskId: string | null, status: string) =>
        waitFor(async () => {
          if (w.exitCode !== null) throw new Error(`worker exited with ${w.exitCode}:\n${w.logs()}`);
          return (await statusOf(taskId)) === status;
        }, 30_000);
      let killed = 0;
      try {
        // 1. Mid-embedding: the worker holds no transaction, only idle pool connections and its
        //    LISTEN connection. Cut them all, twice.
        await waitFor(async () => fake.requests >= 1, 30_000);
        killed += await killWorkerConnections();
        await waitFor(async () => fake.requests >= 2, 30_000);
        killed += await killWorkerConnections();
        expect(killed).toBeGreaterThanOrEqual(2);

        // 2. Inside the switch transaction: hold the document row so the switch waits on it with a
        //    connection checked out, then cut that connection.
        const holder = new pg.Client({ connectionString: t.url });
        await holder.connect();
        try {
          await holder.query("BEGIN");
          await holder.query(`SELECT 1 FROM documents WHERE id = $1 FOR UPDATE`, [r.documentId]);
          fake.mode("ok");
          await waitFor(
            async () =>
              (
                await t.pool.query(
                  `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock'`,
                  [WORKER_APP],
                )
              ).rowCount,
            30_000,
          );
          killed += await killWorkerConnections();
        } finally {
          await holder.query("ROLLBACK").catch(() => undefined);
          await holder.end();
        }

        await untilAlive(r.taskId, "SUCCEEDED");
        await waitFor(async () => versionsSeen(reader.o, "glacier").includes(1));

        // 3. Idle in the claim loop: cut everything again; the next publish is still picked up.
        killed += await killWorkerConnections();
        const r2 = await pub("delta", doc(3, "delta"));
        await untilAlive(r2.taskId, "SUCCEEDED");
        await waitFor(async () => versionsSeen(reader.o, "delta").includes(1));
      } finally {
        if (w.exitCode === null) w.kill("SIGTERM");
      }
      expect((await w.exited).code, w.logs()).toBe(0);
      expectCleanObservation(await reader.stop());

      const ev = await timeline(r.taskId);
      expect(ev.filter((e) => e.kind === "SUCCEEDED")).toHaveLength(1);
      // The cut inside the switch cost that attempt (a retryable failure, or a lease takeover when
      // even the failure could not be recorded); the task was retried, never lost or doubled.
      const final = await task(r.taskId);
      expect(final.status).toBe("SUCCEEDED");
      expect(final.attempts).toBeGreaterThanOrEqual(2);
      for (const e of ev.filter((x) => x.kind === "FAILED")) expect(e.error_code).toBe("INTERNAL_ERROR");
      expect(await getDocument(t.pool, TENANT, "glacier")).toMatchObject({
        state: "SEARCHABLE",
        searchVersion: 1,
        lastError: null,
      });
      expect((await indexVersions("glacier")).map((v) => v.status)).toEqual(["ACTIVE"]);
      expect((await indexVersions("delta")).map((v) => v.status)).toEqual(["ACTIVE"]);
      await expectStoreConsistent();
    },
    60_000,
    onRealPostgres,
  ); // PGlite has one session behind its socket: there is no backend of one client to terminate.
});

describe("the concurrent reader", () => {
  it("is not vacuous: it flags a pointer to a half-built index version and the search hits served from it", async () => {
    const w = inProcessWorker("control", {}, localEmbedder());
    await w.start();
    const r = await pub("basalt", doc(3, "basalt"));
    try {
      await untilStatus(r.taskId, "SUCCEEDED");
    } finally {
      await w.stop(3000);
    }
    // Forge what the pipeline must never produce: a BUILDING index version holding one of the
    // chunks it expects, with the pointer moved onto it (and the complete one left ACTIVE).
    await t.pool.query(
      `WITH src AS (SELECT * FROM index_versions WHERE document_id = $1 AND status = 'ACTIVE'),
            iv AS (
              INSERT INTO index_versions (id, tenant_id, document_id, version_number, task_id, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count)
              SELECT gen_random_uuid(), tenant_id, document_id, version_number, task_id, 'BUILDING', chunker_version, embedding_model, embedding_dimensions, expected_chunk_count FROM src
              RETURNING id),
            ch AS (
              INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, level, section_path, text, content_hash, dims, vector_id)
              SELECT iv.id, c.ordinal, 'forged-' || c.chunk_id, c.tenant_id, c.document_id, c.level, c.section_path, c.text || ' (half-built)', c.content_hash, c.dims, c.vector_id
                FROM iv, chunks c WHERE c.index_version_id = (SELECT id FROM src) AND c.ordinal = 1)
       UPDATE search_pointers SET index_version_id = (SELECT id FROM iv) WHERE document_id = $1`,
      [r.documentId],
    );
    const reader = observe(["basalt explains rule"]);
    await waitFor(async () => reader.o.probes >= 3);
    const o = await reader.stop();
    expect(o.errors).toEqual([]);
    const seen = o.violations.join("\n");
    expect(seen).toMatch(
      /pointer of basalt -> v1: status BUILDING, chunk_count 0 != expected \d+, 1 chunk rows != expected \d+/,
    );
    expect(seen).toMatch(/1 ACTIVE index version\(s\) without a pointer/);
    expect(seen).toMatch(/hit basalt v1 chunk forged-\w+ is not from a complete, succeeded index version/);
  });
});
