// Index-space migration benchmark (docs/decisions/039-index-spaces.md).
//
//   npm run bench:migration      DOCS=10000 PARAS=20 SPACES=local,openai by default
//
// What it answers: how long moving a tenant's documents into another embedding space takes, next to
// a plain full re-index of the same documents, and what publishing and searching cost meanwhile.
//
// Corpus: DOCS deterministic markdown documents of PARAS paragraphs with bench/index.ts's sentence
// and paragraph lengths; CORPUS=topics (default: TOPICS topics with words of their own, see below)
// or CORPUS=flat (bench/index.ts's text exactly).
//
// Fleet: real `indexwright worker` processes (WORKERS, default 1; WORKER_CONCURRENCY slots of
// WORKER_TASKS_PER_SLOT tasks; MIGRATION_SLOTS and MIGRATION_INDEX_* as the product reads them),
// a fresh set per phase, on a database of its own (bench/db.ts).
//
// 1. Seed: tenant "bench" on the default space `local` (local embedder, 384 dimensions, its HNSW
//    index present). Every document is published while INDEX work is paused, the fleet is started,
//    and the clock runs from the resume until every task SUCCEEDED: a plain full index of stored
//    documents, one vector at a time into the live HNSW graph. Reported as seed.* (384 dimensions).
// 2. Per candidate space (SPACES):
//      local  = `local-256`: the local embedder at 256 dimensions;
//      openai = `fake-openai-256`: text-embedding-3-small at 256 dimensions from an OpenAI-compatible
//               fake (bench/fake-openai-host.ts, its own process, key required; the space names the
//               variable IW_BENCH_FAKE_API_KEY, set in the workers' environment only).
//    a. Idle fleet: for IDLE_SECONDS a publisher publishes a new one-paragraph document every
//       PUBLISH_EVERY_MS and waits (polling every 10 ms) until its search pointer is at the
//       published version (publish → SEARCHABLE); a reader runs searchAnswer() every SEARCH_EVERY_MS
//       (vector, topK 10, the tenant's HNSW index; each search timed including its query embedding).
//    b. Migration: startMigration() → MIGRATE tasks, which workers claim only into free slots, never
//       the last one. The same publisher and reader run throughout. The bench polls coverage (the
//       switch's own precondition, lib/spaces/migrations.ts coverageOf) every 100 ms and, the first
//       moment it is 100 %, calls advanceMigrations() itself (the bulk CREATE INDEX CONCURRENTLY
//       with MIGRATION_INDEX_MEMORY_MB and MIGRATION_INDEX_PARALLEL_WORKERS, then READY), instead of
//       waiting for the worker's 10 s maintenance tick, which would pad the wall time by 0-10 s.
//       Wall time = startMigration() called → migration READY (index built). load = start →
//       coverage, build = coverage → READY. Latency samples are split the same way.
//    c. Switch (retried while a just-published document is still on its way into the candidate),
//       every document checked to serve its business version from the candidate, then recall@10
//       of the candidate's HNSW search (searchWithPlan, exactMaxChunks 0) against the exact ranking
//       (exactMaxChunks 1e9) over RECALL_QUERIES queries (half a sentence of a document, half 4–9
//       words; also at ef_search 400, to tell the graph from the search setting); then finish, so
//       the next candidate migrates from this one. A migration not READY within
//       MIGRATION_TIMEOUT_SECONDS is aborted and reported with how far it got.
//    d. Baseline, on a fresh database whose default space is the candidate's (same provider, model,
//       dimensions and chunker; its HNSW index present from the start): the same DOCS documents
//       published while INDEX is paused, the same fleet, clock from the resume until every task
//       of them SUCCEEDED. Plain full re-index of the same stored documents into an empty space,
//       with the same publisher and reader running meanwhile as during the migration (so the two
//       walls are taken under the same side load, and the publish latency a re-index causes
//       stands beside the migration's). Recall@10 of that incrementally built index is measured the same way (SEED_RECALL=1: the
//       seed space's too).
//
// CPU: user+system of the bench process, the worker processes (and the fake provider) and the
// phase database's backends, start to end of each timed phase (bench/db.ts startCpuMeter).
//
// The last line of stdout is one JSON object.
import pg from "pg";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { withBenchDatabase, round3, prng, percentile, startCpuMeter, machineFacts, inParallel, type Cpu } from "./db";
import { publish } from "../lib/documents/publish";
import { loadConfig } from "../lib/config";
import { pauseQueue, resumeQueue } from "../lib/operations/repository";
import { registerEnvironmentSpace } from "../lib/spaces/registry";
import { actOnMigration, getMigration, startMigration } from "../lib/spaces/repository";
import { advanceMigrations, migrationSettings, pgDb } from "../lib/spaces/maintenance";
import { coverageOf } from "../lib/spaces/migrations";
import { spaceIndexName } from "../lib/spaces/indexes";
import { SpaceEmbedders } from "../lib/spaces/embedders";
import { searchAnswer, searchWithPlan, tenantSearchSpace } from "../lib/search/search";
import { OpenAIEmbedder } from "../lib/embedding";
import { startWorker, stopFleet, workerEnv, type BenchWorker, type WorkerStart } from "./fleet";
import { DomainError } from "../lib/domain/errors";

const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = Number(process.env.DOCS ?? 10_000);
const PARAS = Number(process.env.PARAS ?? 20);
const WORKERS = Number(process.env.WORKERS ?? 1);
const CFG = loadConfig({});
const CONCURRENCY = Number(process.env.WORKER_CONCURRENCY ?? CFG.WORKER_CONCURRENCY);
const TASKS_PER_SLOT = Number(process.env.WORKER_TASKS_PER_SLOT ?? CFG.WORKER_TASKS_PER_SLOT);
const MIGRATION_SLOTS = process.env.MIGRATION_SLOTS ? Number(process.env.MIGRATION_SLOTS) : null;
const SETTINGS = migrationSettings(loadConfig(process.env));
const PUBLISHERS = Number(process.env.PUBLISHERS ?? 4);
const PUBLISH_EVERY_MS = Number(process.env.PUBLISH_EVERY_MS ?? 200);
const SEARCH_EVERY_MS = Number(process.env.SEARCH_EVERY_MS ?? 100);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const RECALL_QUERIES = Number(process.env.RECALL_QUERIES ?? 100);
/** Recall of the seed space's incrementally built index as well (another 100 exact rankings). */
const SEED_RECALL = process.env.SEED_RECALL === "1";
/** A migration not READY by then is aborted and reported as such (how far it got, and how fast). */
const MIGRATION_TIMEOUT_SECONDS = Number(process.env.MIGRATION_TIMEOUT_SECONDS ?? 3600);
const SPACES = (process.env.SPACES ?? "local,openai").split(",").filter(Boolean) as ("local" | "openai")[];
const TENANT = "bench";
const ACTOR = { subject: "bench" };
const SEED_DIMS = 384;
const CAND_DIMS = 256;
const OPENAI_MODEL = "text-embedding-3-small";
/** The variable the fake space names for its key (an index space may name only a `…_API_KEY`). */
const KEY_VAR = "IW_BENCH_FAKE_API_KEY";
const FAKE_KEY = `sk-bench-${process.pid}-fake`;
const TMP = mkdtempSync(path.join(os.tmpdir(), "iw-bench-migration-"));
const log = (m: string) => process.stderr.write(`[bench:migration] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TARGET = { wallRatio: 0.5, recallAt10: 0.95 };

for (const s of SPACES) if (s !== "local" && s !== "openai") throw new Error(`SPACES: unknown candidate ${s}`);

// ---------------------------------------------------------------------------------------------
// Corpus. "flat" is bench/index.ts's generator and seed: every word from one 40-word vocabulary,
// so every chunk's vector is close to every other's and no HNSW graph (bulk or incremental) finds
// the exact top 10 reliably at ef_search 100 (a property of that text, not of the build: measured
// in RESULTS.md's notes). "topics" (the default) has the structure a knowledge base has: each of
// TOPICS topics owns 15 words of a generated vocabulary, and each section of a document (a chunk,
// about) is about its document's topic (70 %) or another one, its words half topic words, half the
// common vocabulary. Sentence and paragraph lengths are bench/index.ts's, so chunk counts and the
// cost per chunk are alike.
const CORPUS = (process.env.CORPUS ?? "topics") as "topics" | "flat";
if (CORPUS !== "topics" && CORPUS !== "flat") throw new Error(`CORPUS: topics or flat, not ${CORPUS}`);
const TOPICS = Number(process.env.TOPICS ?? 300);
const rand = prng(42);
const WORDS =
  "policy refund travel expense receipt manager approve deadline invoice customer contract renewal security password rotate access badge office desk schedule holiday leave payroll salary benefit insurance claim training onboarding laptop network printer meeting budget forecast quarter audit compliance vendor shipping warehouse inventory".split(
    " ",
  );
const topicWords: string[][] = (() => {
  const r = prng(4242);
  const syl =
    "ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu".split(
      " ",
    );
  const seen = new Set<string>(WORDS);
  const word = () => {
    for (;;) {
      const w = Array.from({ length: 2 + Math.floor(r() * 3) }, () => syl[Math.floor(r() * syl.length)]).join("");
      if (!seen.has(w)) return (seen.add(w), w);
    }
  };
  return Array.from({ length: TOPICS }, () => Array.from({ length: 15 }, word));
})();
/** A word: of `topic` half the time (topics corpus), else of the common vocabulary. */
const wordOf = (r: () => number, topic: number | null) =>
  topic !== null && r() < 0.5 ? topicWords[topic][Math.floor(r() * 15)] : WORDS[Math.floor(r() * WORDS.length)];
const sentenceOf = (r: () => number, topic: number | null = null) =>
  Array.from({ length: 12 + Math.floor(r() * 10) }, () => wordOf(r, topic)).join(" ") + ".";
const paragraphOf = (r: () => number, topic: number | null = null) =>
  Array.from({ length: 3 + Math.floor(r() * 3) }, () => sentenceOf(r, topic)).join(" ");
const render = (paras: string[], i: number) =>
  [`# Document ${i}`, ...paras.flatMap((p, j) => (j % 5 === 0 ? [`## Part ${j / 5 + 1}`, p] : [p]))].join("\n\n");
const docs = Array.from({ length: DOCS }, (_, i) => {
  const own = CORPUS === "topics" ? Math.floor(rand() * TOPICS) : 0;
  let topic: number | null = null;
  const paras = Array.from({ length: PARAS }, (_, j) => {
    if (CORPUS === "topics" && j % 5 === 0) topic = rand() < 0.7 ? own : Math.floor(rand() * TOPICS);
    return paragraphOf(rand, topic);
  });
  return { key: `doc-${i}`, text: render(paras, i) };
});
/** A query: 4–9 words, of one topic and the common vocabulary (topics corpus), or of the vocabulary. */
const queryOf = (r: () => number) => {
  const topic = CORPUS === "topics" ? Math.floor(r() * TOPICS) : null;
  return Array.from({ length: 4 + Math.floor(r() * 6) }, () => wordOf(r, topic)).join(" ");
};
/** A one-paragraph note the publisher publishes while the fleet is measured. */
const noteOf = (r: () => number) => paragraphOf(r, CORPUS === "topics" ? Math.floor(r() * TOPICS) : null);

// ---------------------------------------------------------------------------------------------
// Worker processes (as bench/index.ts starts them).

type Steps = Record<string, { seconds: number; count: number }>;
const workerStart = (env: Record<string, string>): WorkerStart => ({
  logDir: TMP,
  concurrency: CONCURRENCY,
  withhold: [KEY_VAR],
  env,
});

async function scrapeSteps(w: BenchWorker): Promise<Steps> {
  const text = await (await fetch(`http://127.0.0.1:${w.metricsPort}/metrics`)).text();
  const steps: Steps = {};
  for (const m of text.matchAll(
    /^indexwright_worker_step_duration_seconds_(sum|count)\{step="(\w+)"\} ([0-9.e+-]+)$/gm,
  )) {
    const s = (steps[m[2]] ??= { seconds: 0, count: 0 });
    if (m[1] === "sum") s.seconds = Number(m[3]);
    else s.count = Number(m[3]);
  }
  return steps;
}

/** Step timings of the whole fleet (worker metrics endpoints), summed. */
async function fleetSteps(ws: BenchWorker[]): Promise<Steps> {
  const out: Steps = {};
  for (const s of await Promise.all(ws.map((w) => scrapeSteps(w).catch(() => ({}) as Steps))))
    for (const [k, v] of Object.entries(s))
      out[k] = { seconds: (out[k]?.seconds ?? 0) + v.seconds, count: (out[k]?.count ?? 0) + v.count };
  return out;
}
const stepsBetween = (a: Steps, b: Steps): Steps =>
  Object.fromEntries(
    Object.entries(b).map(([k, v]) => [
      k,
      { seconds: round3(v.seconds - (a[k]?.seconds ?? 0)), count: v.count - (a[k]?.count ?? 0) },
    ]),
  );

async function startFleet(db: pg.Pool, url: string, name: string, env: Record<string, string>) {
  const ws = await Promise.all(
    Array.from({ length: WORKERS }, (_, k) =>
      startWorker(db, url, `bench-${name}-${k}-${process.pid}`, workerStart(env)),
    ),
  );
  // Parse processes, LISTEN, the first idle claim: start-up, not part of any figure.
  await sleep(2000);
  return ws;
}

/** Until every task after `sinceTaskId` (up to `upToTaskId`: the live publisher's come later) has ended. */
async function drain(db: pg.Pool, sinceTaskId: number, upToTaskId = Number.MAX_SAFE_INTEGER): Promise<void> {
  for (;;) {
    const r = await db.query(
      `SELECT count(*) FILTER (WHERE status NOT IN ('SUCCEEDED', 'SUPERSEDED'))::int AS open, count(*) FILTER (WHERE status = 'DEAD')::int AS dead FROM index_tasks WHERE task_id > $1 AND task_id <= $2`,
      [sinceTaskId, upToTaskId],
    );
    if (r.rows[0].dead > 0) throw new Error(`${r.rows[0].dead} tasks DEAD`);
    if (r.rows[0].open === 0) return;
    await sleep(25);
  }
}
const maxTaskId = async (db: pg.Pool) =>
  Number((await db.query(`SELECT coalesce(max(task_id), 0) AS m FROM index_tasks`)).rows[0].m);

const publishDoc = (db: pg.Pool, d: { key: string; text: string }) =>
  publish(db, {
    tenant: TENANT,
    key: d.key,
    title: d.key,
    contentType: "text/markdown",
    content: Buffer.from(d.text),
    acl: [],
    abstract: null,
    overview: null,
    actor: "bench",
    maxAttempts: 8,
  });

/** Documents of the tenant serving their business version from `spaceId`, complete; and their chunks. */
async function serving(db: pg.Pool, spaceId: number) {
  const r = (
    await db.query(
      `SELECT count(*)::int AS documents,
              count(*) FILTER (WHERE sp.version_number = d.business_version AND iv.status = 'ACTIVE'
                                 AND iv.chunk_count = iv.expected_chunk_count AND iv.space_id = $2)::int AS serving,
              coalesce(sum(iv.chunk_count) FILTER (WHERE d.key LIKE 'doc-%'), 0)::int AS corpus_chunks,
              coalesce(sum(iv.chunk_count), 0)::int AS chunks
         FROM documents d
         LEFT JOIN search_pointers sp ON sp.document_id = d.id
         LEFT JOIN index_versions iv ON iv.id = sp.index_version_id
        WHERE d.tenant_id = $1 AND d.deleted_at IS NULL`,
      [TENANT, spaceId],
    )
  ).rows[0] as { documents: number; serving: number; corpus_chunks: number; chunks: number };
  if (r.serving !== r.documents)
    throw new Error(
      `${r.documents - r.serving} of ${r.documents} documents do not serve their business version from space ${spaceId}`,
    );
  return { documents: r.documents, chunks: r.chunks, corpusChunks: r.corpus_chunks };
}

const indexMb = async (db: pg.Pool, spaceId: number) =>
  round3(
    Number((await db.query(`SELECT pg_relation_size($1::regclass) AS b`, [spaceIndexName(spaceId)])).rows[0].b) /
      2 ** 20,
  );

/**
 * ANALYZE the bench database, outside every timed region: the CI server this runs on has
 * autovacuum off, so nothing else would ever give the planner statistics, and with none the exact
 * ranking took minutes per query at 10,000 documents; a production server's autovacuum analyzes
 * after loads like these on its own.
 */
async function analyze(db: pg.Pool): Promise<number> {
  const t0 = performance.now();
  await db.query("ANALYZE");
  return round3((performance.now() - t0) / 1000);
}

// ---------------------------------------------------------------------------------------------
// Plain full index of stored documents: publish all while INDEX is paused, start the fleet, time
// from the resume until every task SUCCEEDED.

type FullIndex = {
  analyzeSecondsAfter: number;
  seconds: number;
  loadAverage1m: { start: number; end: number };
  publishSeconds: number;
  documents: number;
  chunks: number;
  chunksPerSecond: number;
  cpu: Cpu;
  steps: Steps;
  spaceId: number;
  hnswIndexPresentAtStart: boolean;
  latencyDuringReindex: {
    publishToSearchableMs: ReturnType<typeof stats>;
    searchMs: ReturnType<typeof stats>;
    emptySearches: number;
  } | null;
};

async function fullIndex(
  db: pg.Pool,
  url: string,
  name: string,
  env: Record<string, string>,
  extraPids: number[],
  /** The publisher and reader of a migration run meanwhile too (a baseline), searching with these. */
  loadSpaces: SpaceEmbedders | null = null,
): Promise<FullIndex> {
  // What the workers do first at start (the environment's space, default for new tenants, with its
  // HNSW index), done here so the tenant is created on it by the first publish below.
  const reg = await registerEnvironmentSpace(
    db,
    loadConfig(workerEnv(url, 0, workerStart(env)) as Record<string, string>),
  );
  const hnswIndexPresentAtStart =
    (await db.query(`SELECT 1 FROM pg_indexes WHERE indexname = $1`, [spaceIndexName(reg.space.id)])).rowCount === 1;
  const since = await maxTaskId(db);
  const pause = await pauseQueue(db, { taskType: "INDEX" }, ACTOR, "bench: documents stored first", null);
  const p0 = performance.now();
  await inParallel(docs, PUBLISHERS, (d) => publishDoc(db, d));
  const publishSeconds = (performance.now() - p0) / 1000;
  const seeded = await maxTaskId(db);
  log(`${name}: ${DOCS} documents stored in ${publishSeconds.toFixed(1)} s (INDEX paused); starting the fleet`);
  const ws = await startFleet(db, url, name, env);
  try {
    const steps0 = await fleetSteps(ws);
    const meter = await startCpuMeter(db, [...ws.map((w) => w.child.pid!), ...extraPids]);
    const t0 = performance.now();
    const load0 = round3(os.loadavg()[0]);
    await resumeQueue(db, pause.id, ACTOR, null, null);
    const load = loadSpaces ? startLoad(url, loadSpaces, name) : null;
    await drain(db, since, seeded);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = await meter.stop();
    const live = load ? await load.stop() : null;
    const steps = stepsBetween(steps0, await fleetSteps(ws));
    const analyzeSeconds = await analyze(db);
    const s = await serving(db, reg.space.id);
    log(
      `${name}: plain full index of ${s.documents} documents (${s.chunks} chunks) into ${reg.space.name}: ${seconds.toFixed(1)} s, ${Math.round(s.chunks / seconds)} chunks/s`,
    );
    return {
      seconds: round3(seconds),
      loadAverage1m: { start: load0, end: round3(os.loadavg()[0]) },
      publishSeconds: round3(publishSeconds),
      documents: s.documents,
      chunks: s.chunks,
      chunksPerSecond: Math.round(s.chunks / seconds),
      cpu,
      steps,
      spaceId: reg.space.id,
      hnswIndexPresentAtStart,
      analyzeSecondsAfter: analyzeSeconds,
      // What the migration's publisher and reader saw meanwhile: a re-index queues its documents
      // ahead of a publish (first in, first out), a migration's MIGRATE tasks do not.
      latencyDuringReindex: live
        ? {
            publishToSearchableMs: stats(live.publishes),
            searchMs: stats(live.searches),
            emptySearches: live.emptySearches,
          }
        : null,
    };
  } finally {
    await stopFleet(ws);
  }
}

// ---------------------------------------------------------------------------------------------
// Publisher and reader.

type Sample = { at: number; ms: number };
type Load = { stop(): Promise<{ publishes: Sample[]; searches: Sample[]; emptySearches: number; spaces: string[] }> };

function startLoad(url: string, spaces: SpaceEmbedders, tag: string): Load {
  const pubPool = new pg.Pool({ connectionString: url, max: 6 });
  const readPool = new pg.Pool({ connectionString: url, max: 2 });
  pubPool.on("error", () => undefined);
  readPool.on("error", () => undefined);
  const r = prng(tag.length * 7919 + 7);
  const publishes: Sample[] = [];
  const searches: Sample[] = [];
  const answeredBy = new Set<string>();
  let emptySearches = 0;
  let running = true;
  const inflight = new Set<Promise<void>>();
  const publishOne = async (i: number) => {
    const at = performance.now();
    const p = await publishDoc(pubPool, { key: `live-${tag}-${i}`, text: `# Note ${i}\n\n${noteOf(r)}` });
    for (;;) {
      const s = await pubPool.query(
        `SELECT 1 FROM search_pointers sp JOIN index_versions iv ON iv.id = sp.index_version_id WHERE sp.document_id = $1 AND sp.version_number = $2 AND iv.status = 'ACTIVE'`,
        [p.documentId, p.versionNumber],
      );
      if (s.rowCount) break;
      // A full re-index queues a publish behind all of its documents: as long as the re-index lasts.
      if (performance.now() - at > MIGRATION_TIMEOUT_SECONDS * 1000)
        throw new Error(`live-${tag}-${i} not searchable after ${MIGRATION_TIMEOUT_SECONDS} s`);
      await sleep(10);
    }
    publishes.push({ at, ms: performance.now() - at });
  };
  /** Waits until `t` (performance.now()), or less when the load is stopped meanwhile. */
  const until = async (t: number) => {
    while (running && performance.now() < t) await sleep(Math.min(50, t - performance.now()));
  };
  const publisher = (async () => {
    if (PUBLISH_EVERY_MS <= 0) return;
    for (let i = 0; running; i++) {
      const next = performance.now() + PUBLISH_EVERY_MS;
      const p = publishOne(i).finally(() => inflight.delete(p));
      inflight.add(p);
      await until(next);
    }
  })();
  const qr = prng(tag.length * 104729 + 11);
  const reader = (async () => {
    if (SEARCH_EVERY_MS <= 0) return;
    while (running) {
      const next = performance.now() + SEARCH_EVERY_MS;
      const at = performance.now();
      const a = await searchAnswer(readPool, spaces, {
        tenant: TENANT,
        query: queryOf(qr),
        topK: 10,
        principals: [],
        mode: "vector",
      });
      searches.push({ at, ms: performance.now() - at });
      answeredBy.add(a.space.name);
      if (a.hits.length === 0) emptySearches++;
      await until(next);
    }
  })();
  return {
    async stop() {
      running = false;
      await Promise.all([publisher, reader]);
      await Promise.all([...inflight]);
      await Promise.all([pubPool.end(), readPool.end()]);
      return { publishes, searches, emptySearches, spaces: [...answeredBy] };
    },
  };
}

function stats(samples: Sample[]) {
  const s = samples.map((x) => x.ms).sort((a, b) => a - b);
  if (s.length === 0) return { samples: 0, p50: null, p95: null, max: null };
  return {
    samples: s.length,
    p50: round3(percentile(s, 50)),
    p95: round3(percentile(s, 95)),
    max: round3(s[s.length - 1]),
  };
}

// ---------------------------------------------------------------------------------------------
// Recall@10 of a tenant's HNSW search against its exact ranking.

async function recallAt10(db: pg.Pool, spaces: SpaceEmbedders, expectSpaceId: number) {
  const where = await tenantSearchSpace(db, spaces, TENANT);
  if (where.space.id !== expectSpaceId)
    throw new Error(`tenant searches space ${where.space.id}, expected ${expectSpaceId}`);
  const r = prng(20261202);
  // Half the queries are a sentence of a document (what a reader looking for a passage types), half
  // 4–9 words of the vocabulary (no passage stands out).
  const sentence = () => {
    const paras = docs[Math.floor(r() * docs.length)].text.split("\n\n").filter((x) => !x.startsWith("#"));
    const p = paras[Math.floor(r() * paras.length)].split(". ");
    return p[Math.floor(r() * p.length)].replace(/\.$/, "");
  };
  // As ann-benchmarks counts it: a hit is right when it is as close as the exact ranking's 10th
  // (within 1e-3 of it), so a lexical embedder's many equally close chunks do not count as misses
  // for whichever of them the exact scan happened to list. The strict figure (same chunk ids) beside it.
  const sums = { sentence: 0, words: 0, ef400: 0, strict: 0 };
  const strategies: Record<string, number> = {};
  const hnswMs: number[] = [];
  const exactMs: number[] = [];
  const overlap = (a: { chunkId: string }[], truth: Set<string>) =>
    a.filter((h) => truth.has(h.chunkId)).length / Math.max(1, truth.size);
  const closeEnough = (a: { chunkId: string; score: number }[], exact: { chunkId: string; score: number }[]) => {
    if (exact.length === 0) return 1;
    // A vector search's score is the cosine distance: lower is closer.
    const kth = Math.max(...exact.map((h) => h.score));
    return Math.min(exact.length, a.filter((h) => h.score <= kth + 1e-3).length) / exact.length;
  };
  for (let k = 0; k < RECALL_QUERIES; k++) {
    const kind = k % 2 === 0 ? "sentence" : "words";
    const q = {
      tenant: TENANT,
      query: kind === "sentence" ? sentence() : queryOf(r),
      topK: 10,
      principals: [] as string[],
    };
    const t0 = performance.now();
    const ann = await searchWithPlan(db, where, { ...q, exactMaxChunks: 0 });
    hnswMs.push(performance.now() - t0);
    const wide = await searchWithPlan(db, where, { ...q, exactMaxChunks: 0, efSearch: 400 });
    const e0 = performance.now();
    const exact = await searchWithPlan(db, where, { ...q, exactMaxChunks: 1e9 });
    exactMs.push(performance.now() - e0);
    if (exact.strategy !== "exact") throw new Error(`expected an exact ranking, got ${exact.strategy}`);
    strategies[ann.strategy] = (strategies[ann.strategy] ?? 0) + 1;
    const truth = new Set(exact.hits.map((h) => h.chunkId));
    sums[kind] += closeEnough(ann.hits, exact.hits);
    sums.ef400 += closeEnough(wide.hits, exact.hits);
    sums.strict += overlap(ann.hits, truth);
  }
  hnswMs.sort((a, b) => a - b);
  exactMs.sort((a, b) => a - b);
  const half = (n: number) => Math.max(1, n);
  return {
    recallAt10: round3((sums.sentence + sums.words) / RECALL_QUERIES),
    recallAt10SentenceQueries: round3(sums.sentence / half(Math.ceil(RECALL_QUERIES / 2))),
    recallAt10WordQueries: round3(sums.words / half(Math.floor(RECALL_QUERIES / 2))),
    recallAt10EfSearch400: round3(sums.ef400 / RECALL_QUERIES),
    recallAt10SameChunkIds: round3(sums.strict / RECALL_QUERIES),
    queries: RECALL_QUERIES,
    strategies,
    hnswP50Ms: round3(percentile(hnswMs, 50)),
    hnswP95Ms: round3(percentile(hnswMs, 95)),
    exactP50Ms: round3(percentile(exactMs, 50)),
  };
}

// ---------------------------------------------------------------------------------------------
// A migration under load.

type Candidate = {
  key: "local" | "openai";
  /** Name of the candidate space in the migration database. */
  name: string;
  insert: { provider: string; model: string; baseUrl: string | null; apiKeyEnv: string | null };
  /** The environment that makes the same space the default of a fresh database (the baseline). */
  baselineEnv: Record<string, string>;
};

async function migrate(
  db: pg.Pool,
  url: string,
  c: Candidate,
  workerEnvExtra: Record<string, string>,
  spaces: SpaceEmbedders,
  extraPids: number[],
) {
  const spaceId = (
    await db.query<{ id: number }>(
      `INSERT INTO embedding_spaces (name, provider, model, dimensions, base_url, api_key_env, chunker_version, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, 'md-heading-v2', 'bench') RETURNING id`,
      [c.name, c.insert.provider, c.insert.model, CAND_DIMS, c.insert.baseUrl, c.insert.apiKeyEnv],
    )
  ).rows[0].id;
  const fromSpace = (await tenantSearchSpace(db, spaces, TENANT)).space.name;
  const ws = await startFleet(db, url, `mig-${c.key}`, workerEnvExtra);
  try {
    // a. Idle fleet.
    log(
      `${c.key}: idle fleet for ${IDLE_SECONDS} s (publish every ${PUBLISH_EVERY_MS} ms, search every ${SEARCH_EVERY_MS} ms)`,
    );
    const idleLoad = startLoad(url, spaces, `idle-${c.key}`);
    await sleep(IDLE_SECONDS * 1000);
    const idle = await idleLoad.stop();
    await drain(db, 0);

    // b. The migration, publisher and reader running throughout.
    const steps0 = await fleetSteps(ws);
    const meter = await startCpuMeter(db, [...ws.map((w) => w.child.pid!), ...extraPids]);
    const load = startLoad(url, spaces, `mig-${c.key}`);
    const t0 = performance.now();
    const load0 = round3(os.loadavg()[0]);
    const started = await startMigration(db, ACTOR, TENANT, { space: c.name, reason: "bench:migration" }, 8);
    const startMs = performance.now() - t0;
    log(
      `${c.key}: migration ${started.id} ${fromSpace} → ${c.name} started (${started.documents.total} documents, ${Math.round(startMs)} ms)`,
    );
    let tCoverage: number | null = null;
    let tReady: number | null = null;
    let advanceMs: number | null = null;
    let advancedBy: "bench" | "worker" | null = null;
    let lastLog = 0;
    let timedOut: { afterSeconds: number; built: number; total: number } | null = null;
    while (tReady === null) {
      const cov = await coverageOf(pgDb(db), TENANT, spaceId);
      const now = performance.now();
      if (cov.built === cov.total && cov.unverified === 0) {
        tCoverage ??= now;
        const a0 = performance.now();
        const adv = await advanceMigrations(db, "bench", SETTINGS);
        if (adv.ready.includes(started.id)) {
          advanceMs = performance.now() - a0;
          advancedBy = "bench";
        }
      }
      const state = (
        await db.query<{ state: string }>(`SELECT state FROM space_migrations WHERE id = $1`, [started.id])
      ).rows[0].state;
      if (state === "READY") {
        tReady = performance.now();
        advancedBy ??= "worker";
        break;
      }
      if (state !== "BUILDING") throw new Error(`migration ${started.id} is ${state}`);
      if (now - t0 > MIGRATION_TIMEOUT_SECONDS * 1000) {
        timedOut = { afterSeconds: round3((now - t0) / 1000), built: cov.built, total: cov.total };
        break;
      }
      if (now - lastLog > 15_000) {
        lastLog = now;
        const failing = (
          await db.query<{ code: string; status: string; n: number }>(
            `SELECT coalesce(error_code, '') AS code, status, count(*)::int AS n FROM index_tasks
              WHERE task_type = 'MIGRATE' AND status IN ('RETRY_WAIT', 'DEAD') GROUP BY 1, 2`,
          )
        ).rows;
        if (failing.some((f) => f.status === "DEAD"))
          throw new Error(`MIGRATE tasks DEAD: ${JSON.stringify(failing)} (worker logs in ${TMP})`);
        if (failing.length) log(`${c.key}: MIGRATE tasks waiting to retry: ${JSON.stringify(failing)}`);
        log(
          `${c.key}: ${cov.built} of ${cov.total} documents in the candidate after ${((now - t0) / 1000).toFixed(0)} s`,
        );
      }
      await sleep(100);
    }
    if (timedOut !== null || tReady === null) {
      const cpu = await meter.stop();
      const steps = stepsBetween(steps0, await fleetSteps(ws));
      const during = await load.stop();
      const at = await getMigration(db, TENANT, started.id);
      await actOnMigration(db, ACTOR, TENANT, started.id, "abort", "bench: not READY in time");
      log(
        `${c.key}: NOT READY after ${timedOut!.afterSeconds} s (${timedOut!.built} of ${timedOut!.total} documents in the candidate); aborted`,
      );
      return {
        from: fromSpace,
        to: c.name,
        seconds: null,
        loadAverage1m: { start: load0, end: round3(os.loadavg()[0]) },
        timedOut: {
          ...timedOut!,
          documentsPerSecond: round3(timedOut!.built / timedOut!.afterSeconds),
          coverageReachedAfterSeconds: tCoverage === null ? null : round3((tCoverage - t0) / 1000),
        },
        loadSeconds: null,
        buildSeconds: null,
        startCallMs: Math.round(startMs),
        switchMs: null,
        documentsAtStart: started.documents.total,
        textsEmbedded: at.textsEmbedded,
        cpu,
        steps,
        recall: null,
        latency: {
          idle: {
            publishToSearchableMs: stats(idle.publishes),
            searchMs: stats(idle.searches),
            emptySearches: idle.emptySearches,
          },
          duringMigration: {
            publishToSearchableMs: stats(during.publishes),
            searchMs: stats(during.searches),
            emptySearches: during.emptySearches,
            answeredFrom: during.spaces,
          },
        },
      };
    }
    const wall = (tReady - t0) / 1000;
    const loadAtReady = round3(os.loadavg()[0]);
    const loadSeconds = (tCoverage! - t0) / 1000;
    const buildSeconds = (tReady - tCoverage!) / 1000;
    const cpu = await meter.stop();
    const steps = stepsBetween(steps0, await fleetSteps(ws));
    const during = await load.stop();
    const ready = await getMigration(db, TENANT, started.id);
    log(
      `${c.key}: READY after ${wall.toFixed(1)} s (load ${loadSeconds.toFixed(1)} s, bulk HNSW build ${buildSeconds.toFixed(1)} s by the ${advancedBy})`,
    );

    // c. Switch, check, recall, finish.
    const analyzeSeconds = await analyze(db);
    let switchMs = 0;
    let switchAttempts = 0;
    for (;;) {
      switchAttempts++;
      const s0 = performance.now();
      try {
        await actOnMigration(db, ACTOR, TENANT, started.id, "switch", "bench");
        switchMs = performance.now() - s0;
        break;
      } catch (err) {
        if (!(err instanceof DomainError && err.code === "MIGRATION_NOT_READY") || switchAttempts > 200) throw err;
        await sleep(100);
      }
    }
    await drain(db, 0);
    const served = await serving(db, spaceId);
    const recall = await recallAt10(db, spaces, spaceId);
    log(
      `${c.key}: switched in ${Math.round(switchMs)} ms; recall@10 ${recall.recallAt10} over ${recall.queries} queries`,
    );
    const index = { mb: await indexMb(db, spaceId) };
    await actOnMigration(db, ACTOR, TENANT, started.id, "finish", "bench");
    const p = (xs: Sample[], from: number, to: number) => xs.filter((x) => x.at >= from && x.at < to);
    return {
      from: fromSpace,
      to: c.name,
      seconds: round3(wall),
      loadAverage1m: { start: load0, atReady: loadAtReady },
      loadSeconds: round3(loadSeconds),
      buildSeconds: round3(buildSeconds),
      advanceCallMs: advanceMs === null ? null : Math.round(advanceMs),
      indexBuiltBy: advancedBy,
      startCallMs: Math.round(startMs),
      switchMs: Math.round(switchMs),
      switchAttempts,
      analyzeSecondsAfterReady: analyzeSeconds,
      documentsAtStart: started.documents.total,
      documentsAtReady: ready.documents.total,
      documentsServedAfterSwitch: served.documents,
      chunksServedAfterSwitch: served.chunks,
      corpusChunks: served.corpusChunks,
      textsEmbedded: ready.textsEmbedded,
      tokensEmbedded: ready.tokensEmbedded,
      failedTasks: ready.documents.failed,
      indexMB: index.mb,
      cpu,
      steps,
      recall,
      latency: {
        idle: {
          publishToSearchableMs: stats(idle.publishes),
          searchMs: stats(idle.searches),
          emptySearches: idle.emptySearches,
        },
        duringMigration: {
          publishToSearchableMs: stats(during.publishes),
          searchMs: stats(during.searches),
          emptySearches: during.emptySearches,
          answeredFrom: during.spaces,
        },
        duringLoad: {
          publishToSearchableMs: stats(p(during.publishes, t0, tCoverage!)),
          searchMs: stats(p(during.searches, t0, tCoverage!)),
        },
        duringBuild: {
          publishToSearchableMs: stats(p(during.publishes, tCoverage!, tReady)),
          searchMs: stats(p(during.searches, tCoverage!, tReady)),
        },
      },
    };
  } finally {
    await stopFleet(ws);
  }
}

// ---------------------------------------------------------------------------------------------
// The fake OpenAI-compatible provider's process.

type Fake = {
  url: string;
  pid: number;
  stats(): Promise<{ requests: number; textsEmbedded: number }>;
  stop(): Promise<void>;
};

async function startFake(): Promise<Fake> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench/fake-openai-host.ts")], {
    cwd: ROOT,
    env: { ...process.env, FAKE_OPENAI_KEY: FAKE_KEY },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d) => {
      buf += d;
      const m = /ready (\S+)/.exec(buf);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`fake provider exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    stats: () =>
      new Promise((resolve) => {
        child.once("message", (m: { requests: number; textsEmbedded: number }) => resolve(m));
        child.send({ type: "stats" });
      }),
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  log(
    `${DOCS} documents × ${PARAS} paragraphs; candidates ${SPACES.join(", ")}; ${WORKERS} worker process(es) × ${CONCURRENCY} slots × ${TASKS_PER_SLOT} tasks per slot`,
  );
  const fake = SPACES.includes("openai") ? await startFake() : null;
  const fakePids = fake ? [fake.pid] : [];
  // The bench's own searches: the space's embedder from its row (the local ones), or the fake's.
  const spaces = new SpaceEmbedders({
    timeoutMs: 30_000,
    preset: fake
      ? new OpenAIEmbedder({
          apiKey: FAKE_KEY,
          baseURL: fake.url,
          model: OPENAI_MODEL,
          dimensions: CAND_DIMS,
          timeoutMs: 30_000,
        })
      : null,
  });
  const candidates: Candidate[] = SPACES.map((key): Candidate =>
    key === "local"
      ? {
          key,
          name: "local-256",
          insert: { provider: "local", model: "indexwright-local-hash-v1", baseUrl: null, apiKeyEnv: null },
          baselineEnv: { EMBEDDING_PROVIDER: "local", EMBEDDING_DIMENSIONS: String(CAND_DIMS) },
        }
      : {
          key,
          name: "fake-openai-256",
          insert: { provider: "openai", model: OPENAI_MODEL, baseUrl: fake!.url, apiKeyEnv: KEY_VAR },
          baselineEnv: {
            EMBEDDING_PROVIDER: "openai",
            EMBEDDING_MODEL: OPENAI_MODEL,
            EMBEDDING_DIMENSIONS: String(CAND_DIMS),
            OPENAI_BASE_URL: fake!.url,
            OPENAI_API_KEY: FAKE_KEY,
          },
        },
  );
  // The migration database's workers: the default (local, 384) environment, plus the variable the
  // fake space names for its key.
  const migEnv: Record<string, string> = { EMBEDDING_PROVIDER: "local", [KEY_VAR]: FAKE_KEY };
  try {
    const out = await withBenchDatabase("migration", async (url) => {
      const db = new pg.Pool({ connectionString: url, max: 6 });
      db.on("error", () => undefined);
      const machine: Record<string, unknown> = {
        ...(await machineFacts(db)),
        autovacuum: (await db.query<{ v: string }>(`SELECT current_setting('autovacuum') AS v`)).rows[0].v,
      };
      log(
        `machine: ${machine.cpus} CPUs (${machine.cpuModel}), load ${machine.loadAverage1m}; PostgreSQL ${machine.postgres}`,
      );
      const seed = await fullIndex(db, url, "seed", migEnv, fakePids);
      const seedRecall = SEED_RECALL ? await recallAt10(db, spaces, seed.spaceId) : null;
      const results: Record<string, unknown> = {};
      for (const c of candidates) {
        const f0 = fake ? await fake.stats() : null;
        const migration = await migrate(db, url, c, migEnv, spaces, fakePids);
        const f1 = fake ? await fake.stats() : null;
        const baseline = await withBenchDatabase(`migration_base_${c.key}`, async (url2) => {
          const db2 = new pg.Pool({ connectionString: url2, max: 6 });
          db2.on("error", () => undefined);
          try {
            // Space rows and embedders are cached by id, and ids are per database: a set of its own.
            const spaces2 = new SpaceEmbedders({ timeoutMs: 30_000, preset: spaces.preset });
            const full = await fullIndex(db2, url2, `baseline-${c.key}`, c.baselineEnv, fakePids, spaces2);
            const recall = await recallAt10(db2, spaces2, full.spaceId);
            return { ...full, indexMB: await indexMb(db2, full.spaceId), recall };
          } finally {
            await db2.end();
          }
        });
        const f2 = fake ? await fake.stats() : null;
        const ratio = migration.seconds === null ? null : round3(migration.seconds / baseline.seconds);
        const recall = migration.recall?.recallAt10 ?? null;
        log(
          migration.seconds === null
            ? `${c.key}: migration not READY after ${migration.timedOut?.afterSeconds} s vs plain full re-index ${baseline.seconds.toFixed(1)} s`
            : `${c.key}: migration ${migration.seconds.toFixed(1)} s vs plain full re-index ${baseline.seconds.toFixed(1)} s = ${ratio}× (target ≤ ${TARGET.wallRatio}); recall@10 ${recall} (target ≥ ${TARGET.recallAt10})`,
        );
        results[c.key] = {
          wallRatioVsFullReindex: ratio,
          /** When the migration timed out: the ratio is at least this. */
          wallRatioAtLeast: migration.timedOut ? round3(migration.timedOut.afterSeconds / baseline.seconds) : null,
          loadOnlyRatioVsFullReindex:
            migration.loadSeconds === null ? null : round3(migration.loadSeconds / baseline.seconds),
          met: {
            wallRatio: ratio !== null && ratio <= TARGET.wallRatio,
            recallAt10: recall !== null && recall >= TARGET.recallAt10,
          },
          migration,
          baseline,
          fakeProvider:
            f0 && f1 && f2 && c.key === "openai"
              ? {
                  migration: { requests: f1.requests - f0.requests, texts: f1.textsEmbedded - f0.textsEmbedded },
                  baseline: { requests: f2.requests - f1.requests, texts: f2.textsEmbedded - f1.textsEmbedded },
                }
              : null,
        };
      }
      await db.end();
      return { machine, seed: { ...seed, recall: seedRecall }, results };
    });
    type R = {
      wallRatioVsFullReindex: number | null;
      wallRatioAtLeast: number | null;
      loadOnlyRatioVsFullReindex: number | null;
      met: { wallRatio: boolean; recallAt10: boolean };
      migration: Awaited<ReturnType<typeof migrate>>;
      baseline: FullIndex & { recall: { recallAt10: number } };
    };
    // The figures that answer the question first (RESULTS.md shows the first 100 of a result).
    const summary = Object.fromEntries(
      SPACES.map((k) => {
        const r = out.results[k] as R;
        const m = r.migration;
        const l = m.latency;
        return [
          k,
          {
            migrationSeconds: m.seconds,
            fullReindexSeconds: r.baseline.seconds,
            wallRatio: r.wallRatioVsFullReindex,
            wallRatioAtLeast: r.wallRatioAtLeast,
            loadSeconds: m.loadSeconds,
            bulkIndexBuildSeconds: m.buildSeconds,
            loadOnlyRatio: r.loadOnlyRatioVsFullReindex,
            recallAt10: m.recall?.recallAt10 ?? null,
            fullReindexRecallAt10: r.baseline.recall.recallAt10,
            publishToSearchableP50Ms: {
              idle: l.idle.publishToSearchableMs.p50,
              migration: l.duringMigration.publishToSearchableMs.p50,
            },
            publishToSearchableP95Ms: {
              idle: l.idle.publishToSearchableMs.p95,
              migration: l.duringMigration.publishToSearchableMs.p95,
              fullReindex: r.baseline.latencyDuringReindex?.publishToSearchableMs.p95 ?? null,
            },
            searchP50Ms: { idle: l.idle.searchMs.p50, migration: l.duringMigration.searchMs.p50 },
            searchP95Ms: {
              idle: l.idle.searchMs.p95,
              migration: l.duringMigration.searchMs.p95,
              fullReindex: r.baseline.latencyDuringReindex?.searchMs.p95 ?? null,
            },
            switchMs: m.switchMs,
            documents: "documentsAtReady" in m ? m.documentsAtReady : m.documentsAtStart,
            chunks: "chunksServedAfterSwitch" in m ? m.chunksServedAfterSwitch : null,
            met: r.met,
          },
        ];
      }),
    );
    const result = {
      bench: "migration",
      date: new Date().toISOString(),
      method:
        "real worker processes on PostgreSQL; migration wall time = startMigration() → READY (MIGRATE tasks into free slots with no HNSW index to maintain, then one bulk CREATE INDEX CONCURRENTLY, called by the bench the moment coverage is 100 % instead of at the worker's 10 s maintenance tick), with a publisher (a new document every PUBLISH_EVERY_MS, until SEARCHABLE) and a reader (searchAnswer every SEARCH_EVERY_MS) running; baseline = the same stored documents indexed from a paused queue into a fresh database whose default space is the candidate's, HNSW index present, same fleet, the same publisher and reader; recall@10 counted as ann-benchmarks does (a hit as close as the exact 10th, within 1e-3) and by chunk id, = searchWithPlan HNSW (exactMaxChunks 0) against exact (exactMaxChunks 1e9) after the switch; CPU: /proc user+system of the bench, workers, fake provider and the database's backends",
      machine: out.machine,
      target: TARGET,
      summary,
      setup: {
        corpus: CORPUS,
        topics: CORPUS === "topics" ? TOPICS : null,
        documents: DOCS,
        paragraphsPerDocument: PARAS,
        workerProcesses: WORKERS,
        slotsPerWorker: CONCURRENCY,
        tasksPerSlot: TASKS_PER_SLOT,
        // What worker/loop.ts gives MIGRATE work at most: MIGRATION_SLOTS (default all but one), never the last free slot.
        migrationSlotsPerWorker: Math.min(
          MIGRATION_SLOTS ?? Math.max(1, CONCURRENCY - 1),
          CONCURRENCY > 1 ? CONCURRENCY - 1 : 1,
        ),
        indexMemoryMb: SETTINGS.indexMemoryMb,
        indexParallelWorkers: SETTINGS.parallelWorkers,
        publishEveryMs: PUBLISH_EVERY_MS,
        searchEveryMs: SEARCH_EVERY_MS,
        idleSeconds: IDLE_SECONDS,
        recallQueries: RECALL_QUERIES,
        candidateDimensions: CAND_DIMS,
        seedDimensions: SEED_DIMS,
      },
      seed: out.seed,
      ...out.results,
    };
    console.log(JSON.stringify(result));
  } finally {
    await fake?.stop();
  }
  rmSync(TMP, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  log(`worker logs kept in ${TMP}`);
  process.exit(1);
});
