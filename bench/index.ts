// Indexing benchmark (one in-process worker, concurrency 2, local embedder, real PostgreSQL):
//  1. full index of a DOCS-document corpus (PARAS paragraphs each): end-to-end chunks/s from
//     publish until every task SUCCEEDED;
//  2. edit EDIT_PCT % of all paragraphs, republish the changed documents: texts sent to the
//     embedder and wall time (unchanged chunks reuse stored embeddings);
//  3. the same corpus re-embedded in full (REINDEX under a new model name, so nothing is reused),
//     for comparison.
//   npm run bench:index            DOCS=1000 PARAS=20 EDIT_PCT=5 by default
import pg from "pg";
import os from "node:os";
import { withBenchDatabase, round3, serverVersion, prng } from "./db";
import { LocalEmbedder } from "../lib/embedding";
import { publish } from "../lib/documents/publish";
import { reindex } from "../lib/operations/actions";
import { Worker } from "../worker/loop";
import { loadConfig } from "../lib/config";

const DOCS = Number(process.env.DOCS ?? 1000);
const PARAS = Number(process.env.PARAS ?? 20);
const EDIT_PCT = Number(process.env.EDIT_PCT ?? 5);

class CountingEmbedder extends LocalEmbedder {
  texts = 0;
  batches = 0;
  constructor(modelName: string) {
    super(384, modelName);
  }
  override async embed(texts: string[], signal: AbortSignal) {
    this.texts += texts.length;
    this.batches++;
    return super.embed(texts, signal);
  }
}

// Deterministic pseudo-random prose, so runs are comparable.
const rand = prng(42);
const WORDS = "policy refund travel expense receipt manager approve deadline invoice customer contract renewal security password rotate access badge office desk schedule holiday leave payroll salary benefit insurance claim training onboarding laptop network printer meeting budget forecast quarter audit compliance vendor shipping warehouse inventory".split(" ");
const sentence = () => Array.from({ length: 12 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ") + ".";
const paragraph = () => Array.from({ length: 3 + Math.floor(rand() * 3) }, sentence).join(" ");

async function drain(pool: pg.Pool, sinceTaskId: number): Promise<void> {
  for (;;) {
    const r = await pool.query(`SELECT count(*) FILTER (WHERE status NOT IN ('SUCCEEDED', 'SUPERSEDED'))::int AS open, count(*) FILTER (WHERE status = 'DEAD')::int AS dead FROM index_tasks WHERE task_id > $1`, [sinceTaskId]);
    if (r.rows[0].dead > 0) throw new Error(`${r.rows[0].dead} tasks DEAD`);
    if (r.rows[0].open === 0) return;
    await new Promise((res) => setTimeout(res, 50));
  }
}
const maxTaskId = async (pool: pg.Pool) => Number((await pool.query(`SELECT coalesce(max(task_id), 0) AS m FROM index_tasks`)).rows[0].m);

async function main() {
  await withBenchDatabase("index", async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    pool.on("error", () => undefined); // the database is dropped under idle clients at the end
    const cfg = loadConfig({ POLL_INTERVAL_MS: "20", LOG_LEVEL: "silent", LEASE_SECONDS: "60" });
    const run = async (embedder: CountingEmbedder, work: () => Promise<void>) => {
      const w = new Worker({ pool, databaseUrl: url, workerId: "bench", concurrency: 2, cfg, embedder });
      const since = await maxTaskId(pool);
      await w.start();
      const t0 = performance.now();
      await work();
      await drain(pool, since);
      const seconds = (performance.now() - t0) / 1000;
      await w.stop(5000);
      return seconds;
    };
    const corpus = Array.from({ length: DOCS }, () => Array.from({ length: PARAS }, paragraph));
    const text = (paras: string[], i: number) => [`# Document ${i}`, ...paras.flatMap((p, j) => (j % 5 === 0 ? [`## Part ${j / 5 + 1}`, p] : [p]))].join("\n\n");
    const pub = (i: number) => publish(pool, { tenant: "bench", key: `doc-${i}`, title: `Doc ${i}`, contentType: "text/markdown", content: Buffer.from(text(corpus[i], i)), acl: [], abstract: null, overview: null, actor: "bench", maxAttempts: 8 });

    // 1. full index
    const e1 = new CountingEmbedder("indexwright-local-hash-v1");
    const fullSeconds = await run(e1, async () => {
      for (let i = 0; i < DOCS; i++) await pub(i);
    });
    const chunks = Number((await pool.query(`SELECT count(*) FROM chunks`)).rows[0].count);

    // 2. edit EDIT_PCT % of paragraphs and republish what changed
    const totalParas = DOCS * PARAS;
    const edits = Math.round((totalParas * EDIT_PCT) / 100);
    const changedDocs = new Set<number>();
    for (let k = 0; k < edits; k++) {
      const d = Math.floor(rand() * DOCS);
      const p = Math.floor(rand() * PARAS);
      corpus[d][p] = paragraph();
      changedDocs.add(d);
    }
    const e2 = new CountingEmbedder("indexwright-local-hash-v1");
    const incSeconds = await run(e2, async () => {
      for (const d of changedDocs) await pub(d);
    });
    const reuse = (await pool.query(`SELECT sum(chunks_total)::int AS total, sum(chunks_reused)::int AS reused FROM index_tasks WHERE version_number = 2`)).rows[0];

    // 3. full re-embed of the same corpus (new model name: nothing can be reused)
    const e3 = new CountingEmbedder("indexwright-local-hash-v1-rebuild");
    const reSeconds = await run(e3, async () => {
      for (let i = 0; i < DOCS; i++) await reindex(pool, "bench", `doc-${i}`, { subject: "bench" }, 8);
    });
    const pg15 = await serverVersion(pool);
    await pool.end();
    console.log(
      JSON.stringify(
        {
          bench: "index",
          method: "in-process worker (2 slots) against real PostgreSQL; wall time from first publish/reindex until every task SUCCEEDED; texts counted at the embedder",
          machine: { cpus: os.cpus().length, node: process.version, postgres: pg15 },
          corpus: { documents: DOCS, paragraphsPerDocument: PARAS, chunks },
          fullIndex: { seconds: round3(fullSeconds), textsEmbedded: e1.texts, batches: e1.batches, chunksPerSecond: Math.round(chunks / fullSeconds), documentsPerSecond: round3(DOCS / fullSeconds) },
          incrementalAfterEdit: {
            paragraphsEdited: edits,
            editPercent: EDIT_PCT,
            documentsRepublished: changedDocs.size,
            textsEmbedded: e2.texts,
            chunksInRepublishedDocs: reuse.total,
            chunksReused: reuse.reused,
            reuseRate: round3(reuse.reused / reuse.total),
            seconds: round3(incSeconds),
          },
          fullReembed: { seconds: round3(reSeconds), textsEmbedded: e3.texts },
          savings: { textsEmbeddedRatio: round3(e2.texts / e3.texts), timeRatio: round3(incSeconds / reSeconds) },
        },
        null,
        2,
      ),
    );
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
