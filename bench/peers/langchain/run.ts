// The LangChain.js side of bench/index.ts, run as its own process:
//   node --conditions=react-server --import tsx bench/peers/langchain/run.ts <input.json>
// index() from @langchain/core with PostgresRecordManager and PGVectorStore from
// @langchain/community, cleanup "incremental", batches of 50 documents. It is fed the chunks our
// parser and chunker produce (one Document per chunk, metadata {source: document key, section}),
// and embeds with our local embedder wrapped as a LangChain Embeddings, so the two sides differ only
// in how they index. Parsing and chunking are inside the timed region, as they are inside a worker
// task on our side; their share is reported separately. Prints one JSON object as its last line.
//
// The LangChain packages live in this folder's own package.json (installed by bench/index.ts on
// first use): @langchain/community declares peers (Stagehand 1.x, which wants openai 4 and zod 3,
// and the IBM watsonx SDKs) that conflict with the product's dependencies, so they cannot be
// devDependencies of the product without breaking every later `npm install`. They are loaded by a
// computed specifier so the product's type check does not need them installed.
import { readFileSync } from "node:fs";
import pg from "pg";
import { parseDocumentAsync } from "../../../lib/pipeline/parse";
import { chunkSections } from "../../../lib/pipeline/chunker";
import { LocalEmbedder } from "../../../lib/embedding";
import { startCpuMeter } from "../../db";

type Input = {
  url: string;
  dimensions: number;
  hnsw: boolean;
  batchSize: number;
  phases: { name: string; docs: { key: string; text: string }[] }[];
};

type LcDocument = { pageContent: string; metadata: Record<string, unknown> };
type IndexResult = { numAdded: number; numDeleted: number; numUpdated: number; numSkipped: number };
type LcModules = {
  Document: new (fields: LcDocument) => LcDocument;
  Embeddings: new (params: object) => object;
  index: (args: {
    docsSource: LcDocument[];
    recordManager: unknown;
    vectorStore: unknown;
    options: Record<string, unknown>;
  }) => Promise<IndexResult>;
  PostgresRecordManager: new (
    namespace: string,
    config: { pool: pg.Pool; tableName: string },
  ) => { createSchema(): Promise<void> };
  PGVectorStore: {
    initialize(
      embeddings: object,
      config: Record<string, unknown>,
    ): Promise<{ createHnswIndex(c: { dimensions: number }): Promise<void>; end(): Promise<void> }>;
  };
};

const load = (specifier: string) => import(specifier);

async function modules(): Promise<LcModules> {
  const [documents, embeddings, indexing, records, pgvector] = await Promise.all([
    load("@langchain/core/documents"),
    load("@langchain/core/embeddings"),
    load("@langchain/core/indexing"),
    load("@langchain/community/indexes/postgres"),
    load("@langchain/community/vectorstores/pgvector"),
  ]);
  return {
    Document: documents.Document,
    Embeddings: embeddings.Embeddings,
    index: indexing.index,
    PostgresRecordManager: records.PostgresRecordManager,
    PGVectorStore: pgvector.PGVectorStore,
  };
}

async function chunksOf(
  key: string,
  text: string,
  Document: LcModules["Document"],
  embeddingModel: string,
): Promise<LcDocument[]> {
  const sections = await parseDocumentAsync("text/markdown", new TextEncoder().encode(text));
  // The same call as a worker's (lib/pipeline/index-batch.ts), so both sides index the same chunks.
  return chunkSections(sections, { tenantId: "bench", documentId: key, versionNumber: 1 }, { embeddingModel }).map(
    (c) => new Document({ pageContent: c.text, metadata: { source: key, section: c.sectionPath } }),
  );
}

async function main() {
  const input = JSON.parse(readFileSync(process.argv[2], "utf8")) as Input;
  const lc = await modules();
  const local = new LocalEmbedder(input.dimensions);
  const counter = { texts: 0, calls: 0 };
  // Our deterministic embedder behind LangChain's Embeddings interface (its AsyncCaller included).
  class BenchEmbeddings extends (lc.Embeddings as new (params: object) => object) {
    async embedDocuments(texts: string[]): Promise<number[][]> {
      counter.texts += texts.length;
      counter.calls++;
      return local.embed(texts, new AbortController().signal);
    }
    async embedQuery(text: string): Promise<number[]> {
      return (await local.embed([text], new AbortController().signal))[0];
    }
  }
  const pool = new pg.Pool({ connectionString: input.url, max: 4 });
  const recordManager = new lc.PostgresRecordManager("bench", { pool, tableName: "upsertion_records" });
  await recordManager.createSchema();
  const store = await lc.PGVectorStore.initialize(new BenchEmbeddings({}), {
    pool,
    tableName: "langchain_pg_embedding",
    dimensions: input.dimensions,
    distanceStrategy: "cosine",
  });
  if (input.hnsw) await store.createHnswIndex({ dimensions: input.dimensions });

  const phases: Record<string, unknown> = {};
  for (const phase of input.phases) {
    const before = { ...counter };
    // This process and the backends of its pool: the same meter as ours (bench/db.ts).
    const meter = await startCpuMeter(pool, []);
    const t0 = performance.now();
    const docs: LcDocument[] = [];
    for (const d of phase.docs) docs.push(...(await chunksOf(d.key, d.text, lc.Document, local.model)));
    const chunkSeconds = (performance.now() - t0) / 1000;
    const result = await lc.index({
      docsSource: docs,
      recordManager,
      vectorStore: store,
      options: { cleanup: "incremental", sourceIdKey: "source", batchSize: input.batchSize },
    });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = await meter.stop();
    const rows = Number((await pool.query(`SELECT count(*) AS n FROM langchain_pg_embedding`)).rows[0].n);
    phases[phase.name] = {
      seconds,
      cpu,
      chunkSeconds,
      documents: phase.docs.length,
      chunks: docs.length,
      textsEmbedded: counter.texts - before.texts,
      embedCalls: counter.calls - before.calls,
      result,
      rowsAfter: rows,
    };
  }
  await store.end();
  console.log(JSON.stringify({ hnsw: input.hnsw, phases }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
