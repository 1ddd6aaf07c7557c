// Retrieval quality: the generated policy handbook (bench/retrieval/corpus.ts) published through
// the real pipeline (publish, a worker, the local embedder or EMBEDDING_* settings' space), its
// golden set evaluated per search mode by the product's own evaluation (lib/evaluation/evaluate.ts),
// and beside it, in the same run, a well-known lexical baseline: MiniSearch 7.2.0 (BM25+) over the
// very chunks the index serves, asked the same queries with the same protocol (topK chunks, ranked
// into documents by their best chunk, recall@10 / MRR@10 / nDCG@10 from lib/evaluation/metrics.ts).
// The figures are also split by query kind: in the document's own words, and in other words.
//
//   npm run bench:retrieval            TOP_K=10
// The last line is one JSON object.
import pg from "pg";
import MiniSearch from "minisearch";
import { withBenchDatabase, machineFacts, round3 } from "./db";
import { corpus, goldenSet, isParaphrase } from "./retrieval/corpus";
import { loadConfig } from "../lib/config";
import { publish } from "../lib/documents/publish";
import { LocalEmbedder } from "../lib/embedding";
import { SpaceEmbedders } from "../lib/spaces/embedders";
import { tenantSearchSpace } from "../lib/search/search";
import { SEARCH_MODES, type SearchMode } from "../lib/search/modes";
import { evaluateSet } from "../lib/evaluation/evaluate";
import { documentRanking, meanFigures, queryFigures, type Judged } from "../lib/evaluation/metrics";
import type { QueryResult } from "../lib/evaluation/schemas";
import { Worker } from "../worker/loop";

const TENANT = "handbook";
const TOP_K = /^\d+$/.test(process.env.TOP_K ?? "") ? Number(process.env.TOP_K) : 10;

type Row = {
  figures: { recallAt10: number; mrrAt10: number; ndcgAt10: number };
  ownWords: unknown;
  otherWords: unknown;
};
const r3 = (f: { recallAt10: number; mrrAt10: number; ndcgAt10: number }) => ({
  recallAt10: round3(f.recallAt10),
  mrrAt10: round3(f.mrrAt10),
  ndcgAt10: round3(f.ndcgAt10),
});
const split = (qs: { index: number; recall: number; reciprocalRank: number; ndcg: number }[]): Row => ({
  figures: r3(meanFigures(qs)),
  ownWords: r3(meanFigures(qs.filter((q) => !isParaphrase(q.index)))),
  otherWords: r3(meanFigures(qs.filter((q) => isParaphrase(q.index)))),
});

async function main(): Promise<void> {
  const docs = corpus();
  const set = goldenSet();
  const out = await withBenchDatabase("retrieval", async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    // The database is dropped WITH (FORCE) after the run: its idle connections are ended by the server.
    pool.on("error", () => undefined);
    try {
      const cfg = loadConfig({ ...process.env, POLL_INTERVAL_MS: "50", LOG_LEVEL: "warn" });
      const spaces = new SpaceEmbedders({ timeoutMs: 30_000, preset: new LocalEmbedder(384) });
      const worker = new Worker({
        pool,
        databaseUrl: url,
        workerId: "bench-retrieval",
        concurrency: 2,
        cfg,
        embedder: spaces.preset!,
        spaces,
      });
      await worker.start();
      const t0 = performance.now();
      for (const d of docs)
        await publish(pool, {
          tenant: TENANT,
          key: d.key,
          title: d.title,
          contentType: "text/markdown",
          content: Buffer.from(d.markdown),
          acl: [],
          abstract: null,
          overview: null,
          actor: "bench",
          maxAttempts: 3,
        });
      for (;;) {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM search_pointers WHERE tenant_id = $1`,
          [TENANT],
        );
        if (rows[0].n === docs.length) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const indexMs = performance.now() - t0;
      await worker.stop(5_000);
      const { space } = await tenantSearchSpace(pool, spaces, TENANT);

      // Ours, per mode: the evaluation a run makes.
      const ours: Record<string, Row & { msPerQuery: number }> = {};
      const misses: Record<string, Record<string, number>> = {};
      const answers: Record<string, string[]> = {};
      for (const mode of SEARCH_MODES) {
        const m0 = performance.now();
        const r = await evaluateSet(pool, spaces, { tenant: TENANT, space, shadow: false, mode, topK: TOP_K }, set);
        ours[mode] = { ...split(r.results), msPerQuery: round3((performance.now() - m0) / set.length) };
        misses[mode] = stages(r.results);
        answers[mode] = r.results.map((q) => q.answer.map((a) => a.key).join(","));
      }

      // The baseline: BM25+ (MiniSearch's default scoring) over the chunks each document's pointer serves.
      const { rows: chunks } = await pool.query<{ key: string; chunk_id: string; section_path: string; text: string }>(
        `SELECT d.key, c.chunk_id, c.section_path, c.text FROM search_pointers sp
           JOIN documents d ON d.id = sp.document_id
           JOIN chunks c ON c.index_version_id = sp.index_version_id
          WHERE sp.tenant_id = $1 ORDER BY d.key, c.chunk_id`,
        [TENANT],
      );
      const mini = new MiniSearch<{ id: string; key: string; text: string }>({
        fields: ["text"],
        storeFields: ["key"],
      });
      mini.addAll(chunks.map((c) => ({ id: c.chunk_id, key: c.key, text: c.text })));
      const b0 = performance.now();
      const baseline = set.map((q, index) => {
        const hits = mini
          .search(q.query)
          .slice(0, TOP_K)
          .map((h) => ({ documentKey: h.key as string, score: h.score }));
        const ranked = documentRanking(hits);
        const judged: Judged[] = q.relevant.map((k) => {
          const i = ranked.findIndex((d) => d.key === k);
          return { grade: q.grades?.[k] ?? 1, rank: i >= 0 ? i + 1 : null };
        });
        return { index, ...queryFigures(judged) };
      });
      const baselineMs = (performance.now() - b0) / set.length;
      return {
        bench: "retrieval",
        corpus: {
          documents: docs.length,
          chunks: chunks.length,
          queries: set.length,
          paraphrased: set.filter((_, i) => isParaphrase(i)).length,
        },
        space: { name: space.name, model: space.model, dimensions: space.dimensions, chunker: space.chunkerVersion },
        topK: TOP_K,
        indexSeconds: round3(indexMs / 1000),
        ours,
        missesByStage: misses,
        /** Queries whose first 10 documents differ from vector mode's (hybrid fuses the text list into it). */
        answersDifferFromVector: Object.fromEntries(
          SEARCH_MODES.filter((m) => m !== "vector").map((m) => [
            m,
            answers[m].filter((a, i) => a !== answers.vector[i]).length,
          ]),
        ),
        baseline: {
          name: "MiniSearch 7.2.0 (BM25+, default options) over the same chunks",
          ...split(baseline),
          msPerQuery: round3(baselineMs),
        },
        machine: await machineFacts(pool),
      };
    } finally {
      await pool.end();
    }
  });
  const row = (name: string, r: Row) =>
    `${name.padEnd(22)} recall@10 ${r.figures.recallAt10.toFixed(3)}  MRR@10 ${r.figures.mrrAt10.toFixed(3)}  nDCG@10 ${r.figures.ndcgAt10.toFixed(3)}`;
  for (const mode of SEARCH_MODES) console.log(row(`ours ${mode as SearchMode}`, out.ours[mode]));
  console.log(row("MiniSearch BM25+", out.baseline));
  console.log(JSON.stringify(out));
}

function stages(results: QueryResult[]): Record<string, number> {
  const n: Record<string, number> = {};
  for (const r of results)
    for (const d of r.relevant) if (d.diagnosis) n[d.diagnosis.stage] = (n[d.diagnosis.stage] ?? 0) + 1;
  return n;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
