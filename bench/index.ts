// Indexing benchmark: Indexwright against LangChain.js on the same corpus, chunks and embedder.
//
//   npm run bench:index      DOCS=1000 PARAS=20 EDIT_PCT=5 BENCH_REPEAT=3 by default
//
// Corpus: DOCS deterministic markdown documents of PARAS paragraphs (one PRNG seed, so every run
// and both sides see the same text); then EDIT_PCT % of all paragraphs are replaced and the
// documents that changed are re-published.
//
// Ours: real `indexwright worker` processes (one by default, WORKER_CONCURRENCY slots, each running up
// to WORKER_TASKS_PER_SLOT tasks as one batch; both are read from the environment) with the local
// embedder, fed through the real publish path (lib/documents/publish, PUBLISHERS calls at a time),
// on a database of its own (bench/db.ts). Wall time runs from the first publish until every task
// SUCCEEDED. Phases: full index; re-publish after the edit; and our own full re-index (REINDEX of
// every document in another embedding space, so nothing can be reused). Each phase gets a fresh
// worker process, which counts its embedder texts and SQL statements (bench/instrument-worker.ts)
// and reports its step timings (its metrics endpoint).
//
// LangChain.js: index() + PostgresRecordManager + PGVectorStore, cleanup "incremental", batches of
// 50 documents, fed the chunks our chunker produces (bench/peers/langchain/run.ts), in a process of
// its own on a database of its own. Ours always maintains an HNSW index; LangChain's store has none
// unless asked, so it runs twice per repeat: with an HNSW index (the same work as ours: the result
// is searchable by ANN) and without (its default). Headline ratios use the HNSW run.
//
// BENCH_REPEAT pairs (ours, LangChain) run in alternating order on fresh databases; medians, with
// min and max, are reported, because the machine may be shared.
//
// publish → searchable latency: small documents published one at a time on an idle fleet (one
// worker process, default settings), on PostgreSQL (NOTIFY wakes the worker) and on the embedded
// PGlite default (`npm start` without DATABASE_URL: the worker polls, NOTIFY does not cross the
// socket's connections). Gaps are long enough on PGlite for the worker's idle back-off to reach
// its longest poll interval, as on a quiet install.
//
// The last line of stdout is one JSON object.
import pg from "pg";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import {
  withBenchDatabase,
  round3,
  serverVersion,
  prng,
  percentile,
  startCpuMeter,
  freePort,
  inParallel,
  type Cpu,
} from "./db";
import { publish } from "../lib/documents/publish";
import { reindex } from "../lib/documents/repository";
import { migrate } from "../lib/db/migrate";
import { loadConfig } from "../lib/config";

const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = Number(process.env.DOCS ?? 1000);
const PARAS = Number(process.env.PARAS ?? 20);
const EDIT_PCT = Number(process.env.EDIT_PCT ?? 5);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const WORKERS = Number(process.env.WORKERS ?? 1);
const CONCURRENCY = Number(process.env.WORKER_CONCURRENCY ?? loadConfig({}).WORKER_CONCURRENCY);
const TASKS_PER_SLOT = Number(process.env.WORKER_TASKS_PER_SLOT ?? loadConfig({}).WORKER_TASKS_PER_SLOT);
const PUBLISHERS = Number(process.env.PUBLISHERS ?? 4);
const LC_BATCH = 50;
const DIMS = 384;
const LATENCY_PG = Number(process.env.LATENCY_SAMPLES_PG ?? 30);
const LATENCY_PGLITE = Number(process.env.LATENCY_SAMPLES_PGLITE ?? 20);
const SKIP_LATENCY = process.env.SKIP_LATENCY === "1";
const SKIP_LANGCHAIN = process.env.SKIP_LANGCHAIN === "1";
const LC_PEER = path.join(ROOT, "bench/peers/langchain");
const TMP = mkdtempSync(path.join(os.tmpdir(), "iw-bench-index-"));
const log = (m: string) => process.stderr.write(`[bench:index] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Corpus: deterministic pseudo-random prose (the same generator as earlier runs of this bench).
const rand = prng(42);
const WORDS =
  "policy refund travel expense receipt manager approve deadline invoice customer contract renewal security password rotate access badge office desk schedule holiday leave payroll salary benefit insurance claim training onboarding laptop network printer meeting budget forecast quarter audit compliance vendor shipping warehouse inventory".split(
    " ",
  );
const sentence = () =>
  Array.from({ length: 12 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ") + ".";
const paragraph = () => Array.from({ length: 3 + Math.floor(rand() * 3) }, sentence).join(" ");
const render = (paras: string[], i: number) =>
  [`# Document ${i}`, ...paras.flatMap((p, j) => (j % 5 === 0 ? [`## Part ${j / 5 + 1}`, p] : [p]))].join("\n\n");

const corpus = Array.from({ length: DOCS }, () => Array.from({ length: PARAS }, paragraph));
const v1 = corpus.map((paras, i) => ({ key: `doc-${i}`, text: render(paras, i) }));
const edits = Math.round((DOCS * PARAS * EDIT_PCT) / 100);
const changed = new Set<number>();
for (let k = 0; k < edits; k++) {
  const d = Math.floor(rand() * DOCS);
  const p = Math.floor(rand() * PARAS);
  corpus[d][p] = paragraph();
  changed.add(d);
}
const v2 = [...changed].sort((a, b) => a - b).map((i) => ({ key: `doc-${i}`, text: render(corpus[i], i) }));

// ---------------------------------------------------------------------------------------------
// Helpers

type Counts = {
  texts: number;
  embedCalls: number;
  embedMs: number;
  statements: number;
  writeCommits: number;
  transactions: number;
  rollbacks: number;
  dbMs: number;
  byKind: Record<string, { n: number; ms: number }>;
};
type Steps = Record<string, { seconds: number; count: number }>;

type BenchWorker = { child: ChildProcess; id: string; metricsPort: number; countsFile: string; logFile: string };

function nodeArgs(script: string, instrument: boolean): string[] {
  return [
    "--conditions=react-server",
    "--import",
    "tsx",
    ...(instrument ? ["--import", path.join(ROOT, "bench/instrument-worker.ts")] : []),
    script,
  ];
}

async function startWorker(
  db: pg.Pool,
  url: string,
  id: string,
  env: Record<string, string> = {},
  instrument = true,
): Promise<BenchWorker> {
  const metricsPort = await freePort();
  const countsFile = path.join(TMP, `${id}.counts.json`);
  const logFile = path.join(TMP, `${id}.log`);
  const out = openSync(logFile, "a");
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs(path.join(ROOT, "cli/main.ts"), instrument),
      "worker",
      "--concurrency",
      String(CONCURRENCY),
      "--id",
      id,
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: url,
        WORKER_METRICS_PORT: String(metricsPort),
        WORKER_METRICS_HOST: "127.0.0.1",
        BENCH_COUNTS_FILE: countsFile,
        ...env,
      },
      stdio: ["ignore", out, out],
    },
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`worker ${id} exited with ${child.exitCode}:\n${readFileSync(logFile, "utf8").slice(-3000)}`);
    const r = await db
      .query(`SELECT 1 FROM workers WHERE id = $1 AND stopped_at IS NULL`, [id])
      .catch(() => ({ rowCount: 0 }));
    if (r.rowCount) return { child, id, metricsPort, countsFile, logFile };
    if (Date.now() > deadline) throw new Error(`worker ${id} did not register within 60 s`);
    await sleep(50);
  }
}

async function scrapeSteps(w: BenchWorker): Promise<Steps> {
  const text = await (await fetch(`http://127.0.0.1:${w.metricsPort}/metrics`)).text();
  const steps: Steps = {};
  for (const m of text.matchAll(
    /^indexwright_worker_step_duration_seconds_(sum|count)\{step="(\w+)"\} ([0-9.e+-]+)$/gm,
  )) {
    const s = (steps[m[2]] ??= { seconds: 0, count: 0 });
    if (m[1] === "sum") s.seconds = round3(Number(m[3]));
    else s.count = Number(m[3]);
  }
  return steps;
}

async function stopWorker(w: BenchWorker): Promise<{ steps: Steps; counts: Counts }> {
  const steps = await scrapeSteps(w).catch(() => ({}));
  const exited = new Promise((r) => w.child.once("exit", r));
  w.child.kill("SIGTERM");
  await exited;
  return { steps, counts: JSON.parse(readFileSync(w.countsFile, "utf8")) as Counts };
}

async function drain(db: pg.Pool, sinceTaskId: number): Promise<void> {
  for (;;) {
    const r = await db.query(
      `SELECT count(*) FILTER (WHERE status NOT IN ('SUCCEEDED', 'SUPERSEDED'))::int AS open, count(*) FILTER (WHERE status = 'DEAD')::int AS dead FROM index_tasks WHERE task_id > $1`,
      [sinceTaskId],
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
    tenant: "bench",
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

/** Every document searchable at its business version, complete, in the expected space. */
async function verifyServing(
  db: pg.Pool,
  dims: number,
): Promise<{ documents: number; serving: number; chunks: number; attemptsOverOne: number }> {
  const r = (
    await db.query(
      `SELECT count(*)::int AS documents,
              count(*) FILTER (WHERE sp.version_number = d.business_version AND iv.status = 'ACTIVE'
                                 AND iv.chunk_count = iv.expected_chunk_count AND iv.embedding_dimensions = $1)::int AS serving,
              coalesce(sum(iv.chunk_count), 0)::int AS chunks,
              (SELECT count(*) FROM index_tasks WHERE attempts > 1)::int AS attempts_over_one
         FROM documents d
         LEFT JOIN search_pointers sp ON sp.document_id = d.id
         LEFT JOIN index_versions iv ON iv.id = sp.index_version_id
        WHERE d.tenant_id = 'bench'`,
      [dims],
    )
  ).rows[0];
  if (r.serving !== r.documents)
    throw new Error(`${r.documents - r.serving} of ${r.documents} documents are not serving their business version`);
  return { documents: r.documents, serving: r.serving, chunks: r.chunks, attemptsOverOne: r.attempts_over_one };
}

function perDoc(counts: Counts, docs: number) {
  const top = Object.entries(counts.byKind)
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 12)
    .map(([kind, k]) => ({ kind, perDocument: round3(k.n / docs), ms: Math.round(k.ms) }));
  return {
    statementsPerDocument: round3(counts.statements / docs),
    writeCommitsPerDocument: round3(counts.writeCommits / docs),
    transactionsPerDocument: round3(counts.transactions / docs),
    embedCallsPerDocument: round3(counts.embedCalls / docs),
    textsPerEmbedCall: round3(counts.texts / Math.max(1, counts.embedCalls)),
    embedSeconds: round3(counts.embedMs / 1000),
    dbWaitSeconds: round3(counts.dbMs / 1000),
    rollbacks: counts.rollbacks,
    slowestStatements: top,
  };
}

// CPU of a phase (bench/db.ts startCpuMeter): `node` is the client side (ours: the bench process,
// whose publish calls are the publishers, and the worker processes; LangChain: its one process),
// `database` the PostgreSQL backends of the phase's database. Wall time alone hides what each side
// spends: ours works on both cores at once (slots, publishers, backends), LangChain on one
// connection and one Node thread.

/** Medians of each part over repeats (null if any repeat could not be read). */
function cpuMedian(cs: Cpu[]): Cpu {
  const m = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : round3(median(xs as number[])));
  return { node: m(cs.map((c) => c.node)), database: m(cs.map((c) => c.database)), total: m(cs.map((c) => c.total)) };
}
/** Median over repeats of a[i].total ÷ b[i].total; null without figures. */
function cpuRatio(a: Cpu[], b: Cpu[]): number | null {
  if (a.length === 0 || a.length !== b.length || [...a, ...b].some((c) => !c.total)) return null;
  return round3(median(a.map((x, i) => x.total! / b[i].total!)));
}
const fmtCpu = (c: Cpu) =>
  c.total === null
    ? "n/a"
    : `${c.total.toFixed(1)} core-s (node ${c.node!.toFixed(1)}, database ${c.database!.toFixed(1)})`;

// ---------------------------------------------------------------------------------------------
// Ours

async function runOurs(url: string) {
  const db = new pg.Pool({ connectionString: url, max: PUBLISHERS + 2 });
  db.on("error", () => undefined); // the database is dropped under idle clients at the end
  const phase = async (name: string, env: Record<string, string>, dims: number, work: () => Promise<void>) => {
    const workers = await Promise.all(
      Array.from({ length: WORKERS }, (_, k) => startWorker(db, url, `bench-${name}-${k}`, env)),
    );
    const since = await maxTaskId(db);
    const meter = await startCpuMeter(
      db,
      workers.map((w) => w.child.pid!),
    );
    const t0 = performance.now();
    await work();
    await drain(db, since);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = await meter.stop();
    const stopped = await Promise.all(workers.map(stopWorker));
    const counts = stopped.map((s) => s.counts).reduce(sumCounts);
    const steps: Steps = {};
    for (const s of stopped)
      for (const [k, v] of Object.entries(s.steps))
        steps[k] = { seconds: round3((steps[k]?.seconds ?? 0) + v.seconds), count: (steps[k]?.count ?? 0) + v.count };
    const serving = await verifyServing(db, dims);
    const tasks = (
      await db.query(
        `SELECT count(*)::int AS n, coalesce(sum(chunks_total), 0)::int AS total, coalesce(sum(chunks_reused), 0)::int AS reused FROM index_tasks WHERE task_id > $1 AND status = 'SUCCEEDED'`,
        [since],
      )
    ).rows[0];
    log(`ours ${name}: ${seconds.toFixed(1)} s, ${tasks.n} tasks, ${counts.texts} texts embedded, CPU ${fmtCpu(cpu)}`);
    return { seconds, cpu, counts, steps, serving, tasks };
  };
  const full = await phase("full", {}, DIMS, () => inParallel(v1, PUBLISHERS, (d) => publishDoc(db, d)));
  const republish = await phase("republish", {}, DIMS, () => inParallel(v2, PUBLISHERS, (d) => publishDoc(db, d)));
  // Our own full re-index: every document again in another embedding space (nothing reusable).
  const reindexAll = await phase("reindex", { EMBEDDING_DIMENSIONS: String(DIMS - 1) }, DIMS - 1, () =>
    inParallel(v1, PUBLISHERS, (d) => reindex(db, "bench", d.key, { subject: "bench" }, 8)),
  );
  const postgres = await serverVersion(db);
  await db.end();
  return { full, republish, reindexAll, postgres };
}

function sumCounts(a: Counts, b: Counts): Counts {
  const byKind = { ...a.byKind };
  for (const [k, v] of Object.entries(b.byKind))
    byKind[k] = { n: (byKind[k]?.n ?? 0) + v.n, ms: (byKind[k]?.ms ?? 0) + v.ms };
  return {
    texts: a.texts + b.texts,
    embedCalls: a.embedCalls + b.embedCalls,
    embedMs: a.embedMs + b.embedMs,
    statements: a.statements + b.statements,
    writeCommits: a.writeCommits + b.writeCommits,
    transactions: a.transactions + b.transactions,
    rollbacks: a.rollbacks + b.rollbacks,
    dbMs: a.dbMs + b.dbMs,
    byKind,
  };
}

// ---------------------------------------------------------------------------------------------
// LangChain.js

type LcPhase = {
  seconds: number;
  cpu: Cpu;
  chunkSeconds: number;
  documents: number;
  chunks: number;
  textsEmbedded: number;
  embedCalls: number;
  rowsAfter: number;
  result: Record<string, number>;
};

function ensureLangChain(): void {
  if (existsSync(path.join(LC_PEER, "node_modules/@langchain/community/package.json"))) return;
  log("installing the LangChain.js peer into bench/peers/langchain (its own package-lock.json)…");
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: LC_PEER,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0) throw new Error("npm ci in bench/peers/langchain failed");
}

async function runLangChain(url: string, hnsw: boolean): Promise<{ full: LcPhase; republish: LcPhase }> {
  const input = path.join(TMP, `langchain-${hnsw ? "hnsw" : "plain"}.json`);
  writeFileSync(
    input,
    JSON.stringify({
      url,
      dimensions: DIMS,
      hnsw,
      batchSize: LC_BATCH,
      phases: [
        { name: "full", docs: v1 },
        { name: "republish", docs: v2 },
      ],
    }),
  );
  const r = spawnSync(process.execPath, [...nodeArgs(path.join(LC_PEER, "run.ts"), false), input], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`LangChain run failed (${r.status}):\n${r.stderr.slice(-4000)}`);
  const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as { phases: { full: LcPhase; republish: LcPhase } };
  log(
    `langchain${hnsw ? " (hnsw)" : ""}: full ${out.phases.full.seconds.toFixed(1)} s, republish ${out.phases.republish.seconds.toFixed(1)} s (CPU ${fmtCpu(out.phases.republish.cpu)}), ${out.phases.republish.textsEmbedded} texts`,
  );
  return out.phases;
}

// ---------------------------------------------------------------------------------------------
// publish → searchable on an idle fleet

async function latency(
  url: string,
  samples: number,
  gapMs: [number, number],
): Promise<{ samples: number; p50: number; p95: number; max: number; gapMs: [number, number] }> {
  const db = new pg.Pool({ connectionString: url, max: 2 });
  db.on("error", () => undefined);
  const w = await startWorker(db, url, `bench-latency-${process.pid}-${Date.now()}`, {}, false);
  const r = prng(7);
  const ms: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      await sleep(gapMs[0] + r() * (gapMs[1] - gapMs[0]));
      const t0 = performance.now();
      const p = await publish(db, {
        tenant: "latency",
        key: `note-${i}`,
        title: `Note ${i}`,
        contentType: "text/markdown",
        content: Buffer.from(`# Note ${i}\n\n${paragraph()}`),
        acl: [],
        abstract: null,
        overview: null,
        actor: "bench",
        maxAttempts: 8,
      });
      for (;;) {
        const s = await db.query(
          `SELECT 1 FROM search_pointers sp JOIN index_versions iv ON iv.id = sp.index_version_id WHERE sp.document_id = $1 AND sp.version_number = $2 AND iv.status = 'ACTIVE'`,
          [p.documentId, p.versionNumber],
        );
        if (s.rowCount) break;
        if (performance.now() - t0 > 120_000) throw new Error(`note-${i} not searchable after 120 s`);
        await sleep(10);
      }
      ms.push(performance.now() - t0);
    }
  } finally {
    await stopWorker(w).catch(() => undefined);
    await db.end();
  }
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    samples,
    p50: Math.round(percentile(sorted, 50)),
    p95: Math.round(percentile(sorted, 95)),
    max: Math.round(sorted[sorted.length - 1]),
    gapMs,
  };
}

async function latencyPglite(samples: number, gapMs: [number, number]) {
  const port = await freePort();
  const dataDir = path.join(TMP, "pglite");
  const host = spawn(process.execPath, nodeArgs(path.join(ROOT, "bench/pglite-host.ts"), false), {
    cwd: ROOT,
    env: { ...process.env, PGLITE_PORT: String(port), PGLITE_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buf = "";
      host.stdout!.on("data", (d) => {
        buf += d;
        const m = /ready (\S+)/.exec(buf);
        if (m) resolve(m[1]);
      });
      host.once("exit", (code) => reject(new Error(`PGlite host exited with ${code}`)));
    });
    await migrate(url);
    return await latency(url, samples, gapMs);
  } finally {
    const exited = new Promise((r) => host.once("exit", r));
    host.kill("SIGTERM");
    await exited;
  }
}

// ---------------------------------------------------------------------------------------------

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs: number[]) => ({
  median: round3(median(xs)),
  min: round3(Math.min(...xs)),
  max: round3(Math.max(...xs)),
  runs: xs.map(round3),
});

async function main() {
  if (!SKIP_LANGCHAIN) ensureLangChain();
  log(
    `corpus: ${DOCS} documents × ${PARAS} paragraphs; ${edits} paragraphs edited in ${v2.length} documents; ${REPEAT} repeat(s); ${WORKERS} worker process(es) × ${CONCURRENCY} slots × ${TASKS_PER_SLOT} tasks per slot`,
  );
  type Ours = Awaited<ReturnType<typeof runOurs>>;
  const ours: Ours[] = [];
  const lcHnsw: { full: LcPhase; republish: LcPhase }[] = [];
  const lcPlain: { full: LcPhase; republish: LcPhase }[] = [];
  for (let k = 0; k < REPEAT; k++) {
    const runOursOnce = async () => ours.push(await withBenchDatabase(`index_ours_${k}`, runOurs));
    const runLcOnce = async () => {
      if (SKIP_LANGCHAIN) return;
      lcHnsw.push(await withBenchDatabase(`index_lc_${k}`, (url) => runLangChain(url, true)));
      lcPlain.push(await withBenchDatabase(`index_lcp_${k}`, (url) => runLangChain(url, false)));
    };
    // Alternate the order, so a machine that gets busier or quieter does not favour one side.
    if (k % 2 === 0) {
      await runOursOnce();
      await runLcOnce();
    } else {
      await runLcOnce();
      await runOursOnce();
    }
  }

  let latencyResult: Record<string, unknown> | null = null;
  if (!SKIP_LATENCY) {
    const postgres = await withBenchDatabase("index_latency", (url) => latency(url, LATENCY_PG, [300, 2500]));
    log(`publish → searchable on PostgreSQL: p95 ${postgres.p95} ms`);
    // Gaps of 6.5–14.5 s: the idle worker polls at 2, 4, then every 8 s (POLL_INTERVAL_MS 2000,
    // backing off to 4×), so each note arrives at a uniformly random point of an 8 s poll cycle.
    const pglite = await latencyPglite(LATENCY_PGLITE, [6500, 14500]);
    log(`publish → searchable on PGlite: p95 ${pglite.p95} ms`);
    latencyResult = { postgres, pglite };
  }

  const chunks = ours[0].full.serving.chunks;
  const oursFull = ours.map((o) => o.full.seconds);
  const oursRe = ours.map((o) => o.republish.seconds);
  const oursReindex = ours.map((o) => o.reindexAll.seconds);
  const lcFull = lcHnsw.map((l) => l.full.seconds);
  const lcRe = lcHnsw.map((l) => l.republish.seconds);
  const lcPlainFull = lcPlain.map((l) => l.full.seconds);
  const lcPlainRe = lcPlain.map((l) => l.republish.seconds);
  // Ratios pair each repeat's runs (measured minutes apart) before taking the median.
  const pairs = (a: number[], b: number[], f: (x: number, y: number) => number) => a.map((x, i) => f(x, b[i]));
  const last = ours[ours.length - 1];
  const result = {
    bench: "index",
    method:
      "ours: real worker process(es), local embedder, library publish() path, PostgreSQL; wall time from the first publish/reindex until every task SUCCEEDED. LangChain.js: index() + PostgresRecordManager + PGVectorStore (cleanup incremental, batchSize 50), fed our chunker's chunks, the same embedder wrapped as Embeddings; parse+chunk inside the timed region on both sides. Medians over repeats; ratios paired per repeat. CPU: user+system time from /proc of the client processes (ours: bench process with the publishers, worker; LangChain: its process) and of the phase database's backends, start to end of each phase",
    machine: {
      cpus: os.cpus().length,
      load1: round3(os.loadavg()[0]),
      node: process.version,
      postgres: ours[0].postgres,
    },
    corpus: {
      documents: DOCS,
      paragraphsPerDocument: PARAS,
      chunks,
      editPercent: EDIT_PCT,
      paragraphsEdited: edits,
      documentsRepublished: v2.length,
    },
    setup: {
      workerProcesses: WORKERS,
      slotsPerWorker: CONCURRENCY,
      tasksPerSlot: TASKS_PER_SLOT,
      publishers: PUBLISHERS,
      repeats: REPEAT,
      langchainBatchSize: LC_BATCH,
    },
    ratioVsLangChain: lcRe.length ? round3(median(pairs(lcRe, oursRe, (t, o) => t / o))) : null,
    ratioVsLangChainNoHnsw: lcPlainRe.length ? round3(median(pairs(lcPlainRe, oursRe, (t, o) => t / o))) : null,
    fullIndexRatioVsLangChain: lcFull.length ? round3(median(pairs(oursFull, lcFull, (o, t) => t / o))) : null,
    fullIndexRatioVsLangChainNoHnsw: lcPlainFull.length
      ? round3(median(pairs(oursFull, lcPlainFull, (o, t) => t / o)))
      : null,
    republishVsOwnFullReindex: round3(median(pairs(oursRe, oursReindex, (r, f) => r / f))),
    // The same comparison in CPU (core-seconds, client processes + database backends): what each
    // side spends, beside the wall time it takes; ratios again paired per repeat.
    cpuRatioVsLangChain: cpuRatio(
      lcHnsw.map((l) => l.republish.cpu),
      ours.map((o) => o.republish.cpu),
    ),
    fullIndexCpuRatioVsLangChain: cpuRatio(
      lcHnsw.map((l) => l.full.cpu),
      ours.map((o) => o.full.cpu),
    ),
    republishCpuVsOwnFullReindex: cpuRatio(
      ours.map((o) => o.republish.cpu),
      ours.map((o) => o.reindexAll.cpu),
    ),
    textsEmbedded: {
      ours: last.republish.counts.texts,
      langchain: lcHnsw.length ? lcHnsw[lcHnsw.length - 1].republish.textsEmbedded : null,
    },
    chunksPerSecond: {
      ours: Math.round(chunks / median(oursFull)),
      langchain: lcFull.length ? Math.round(lcHnsw[0].full.chunks / median(lcFull)) : null,
      langchainNoHnsw: lcPlainFull.length ? Math.round(lcPlain[0].full.chunks / median(lcPlainFull)) : null,
    },
    publishToSearchableP95Ms: latencyResult
      ? {
          postgres: (latencyResult.postgres as { p95: number }).p95,
          pglite: (latencyResult.pglite as { p95: number }).p95,
        }
      : null,
    seconds: {
      ours: { fullIndex: spread(oursFull), republish: spread(oursRe), fullReindex: spread(oursReindex) },
      langchain: lcFull.length ? { fullIndex: spread(lcFull), republish: spread(lcRe) } : null,
      langchainNoHnsw: lcPlainFull.length ? { fullIndex: spread(lcPlainFull), republish: spread(lcPlainRe) } : null,
    },
    cpuSeconds: {
      ours: {
        fullIndex: cpuMedian(ours.map((o) => o.full.cpu)),
        republish: cpuMedian(ours.map((o) => o.republish.cpu)),
        fullReindex: cpuMedian(ours.map((o) => o.reindexAll.cpu)),
      },
      langchain: lcHnsw.length
        ? {
            fullIndex: cpuMedian(lcHnsw.map((l) => l.full.cpu)),
            republish: cpuMedian(lcHnsw.map((l) => l.republish.cpu)),
          }
        : null,
      langchainNoHnsw: lcPlain.length
        ? {
            fullIndex: cpuMedian(lcPlain.map((l) => l.full.cpu)),
            republish: cpuMedian(lcPlain.map((l) => l.republish.cpu)),
          }
        : null,
    },
    publishToSearchable: latencyResult,
    ours: {
      fullIndex: {
        texts: last.full.counts.texts,
        tasks: last.full.tasks.n,
        steps: last.full.steps,
        ...perDoc(last.full.counts, DOCS),
      },
      republish: {
        texts: last.republish.counts.texts,
        tasks: last.republish.tasks.n,
        chunksInRepublishedDocs: last.republish.tasks.total,
        chunksReused: last.republish.tasks.reused,
        steps: last.republish.steps,
        ...perDoc(last.republish.counts, v2.length),
      },
      fullReindex: {
        texts: last.reindexAll.counts.texts,
        tasks: last.reindexAll.tasks.n,
        steps: last.reindexAll.steps,
        ...perDoc(last.reindexAll.counts, DOCS),
      },
    },
    langchain: lcHnsw.length ? { hnsw: lcHnsw[lcHnsw.length - 1], noHnsw: lcPlain[lcPlain.length - 1] } : null,
  };
  rmSync(TMP, { recursive: true, force: true });
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  log(`worker logs kept in ${TMP}`);
  process.exit(1);
});
