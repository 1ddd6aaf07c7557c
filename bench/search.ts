// Search benchmark: latency p50/p95 and recall@10 against exact search, at CHUNKS chunks spread
// over TENANTS tenants, every query filtered to one tenant (so each query sees 1/TENANTS of the
// data). Real PostgreSQL + pgvector HNSW (m=16, ef_construction=64 defaults), ef_search=100,
// iterative index scans on (what lib/search/search.ts uses); the same queries with iterative scans
// off are measured too, to show what the filter would cost without them. The default path
// searches tenants of at most SEARCH_EXACT_MAX_CHUNKS chunks exactly; `hnswForced` shows the
// approximate path on the same queries.
//   npm run bench:search        CHUNKS=100000 TENANTS=10 QUERIES=200
import pg from "pg";
import os from "node:os";
import { randomUUID } from "node:crypto";
import { withBenchDatabase, percentile, round3, serverVersion, prng } from "./db";
import { LocalEmbedder } from "../lib/embedding";
import { embedLocal } from "../lib/pipeline/local-embedder";
import { toVectorLiteral } from "../lib/embedding/types";
import { searchWithPlan, EXACT_SEARCH_MAX_CHUNKS } from "../lib/search/search";

const CHUNKS = Number(process.env.CHUNKS ?? 100_000);
const TENANTS = Number(process.env.TENANTS ?? 10);
const QUERIES = Number(process.env.QUERIES ?? 200);
const PER_DOC = 100;

const rand = prng(7);
const VOCAB = Array.from({ length: 3000 }, (_, i) => `w${(i * 7919) % 100000}`.replace(/\d/g, (d) => "abcdefghij"[Number(d)]));
const text = () => Array.from({ length: 25 + Math.floor(rand() * 25) }, () => VOCAB[Math.floor(rand() ** 2 * VOCAB.length)]).join(" ");

async function main() {
  await withBenchDatabase("search", async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on("error", () => undefined); // the database is dropped under idle clients at the end
    await pool.query(`DROP INDEX chunks_embedding_384_hnsw`);
    const docs = Math.ceil(CHUNKS / PER_DOC);
    const texts: string[] = [];
    const tenantOfChunk: string[] = [];
    const t0 = performance.now();
    for (let t = 0; t < TENANTS; t++) await pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1)`, [`t${t}`]);
    for (let d = 0; d < docs; d++) {
      const tenant = `t${d % TENANTS}`;
      const docId = randomUUID();
      const ivId = randomUUID();
      await pool.query(`INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, $3, 'Doc', 1)`, [docId, tenant, `doc-${d}`]);
      await pool.query(
        `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by) VALUES ($1, $2, $3, 1, 'Doc', 'text/plain', '\\x00', 1, 'x', 'bench')`,
        [randomUUID(), tenant, docId],
      );
      await pool.query(
        `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count) VALUES ($1, $2, $3, 1, 'ACTIVE', 'c', 'm', 384, $4, $4)`,
        [ivId, tenant, docId, PER_DOC],
      );
      await pool.query(`INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, $2, $3, 1)`, [docId, tenant, ivId]);
      const chunkTexts = Array.from({ length: PER_DOC }, text);
      const vecs = embedLocal(chunkTexts, 384).map(toVectorLiteral);
      await pool.query(
        `INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, text, content_hash, dims, embedding)
         SELECT $1, o, $2 || '-' || o, $3, $4, t, md5(t), 384, e::vector FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS u(t, e, o)`,
        [ivId, `d${d}`, tenant, docId, chunkTexts, vecs],
      );
      texts.push(...chunkTexts);
      for (let k = 0; k < PER_DOC; k++) tenantOfChunk.push(tenant);
    }
    const seedSeconds = (performance.now() - t0) / 1000;
    const b0 = performance.now();
    await pool.query(`SET maintenance_work_mem = '512MB'`);
    await pool.query(`CREATE INDEX chunks_embedding_384_hnsw ON chunks USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE dims = 384`);
    await pool.query(`ANALYZE`);
    const buildSeconds = (performance.now() - b0) / 1000;

    const embedder = new LocalEmbedder(384);
    const lat: number[] = [];
    const latHnsw: number[] = [];
    let recallSum = 0;
    let recallHnswSum = 0;
    let recallOffSum = 0;
    let sourceFirst = 0;
    let sourceFirstHnsw = 0;
    let usedIndex = false;
    const strategies = new Set<string>();
    for (let i = 0; i < QUERIES; i++) {
      const pick = Math.floor(rand() * texts.length);
      const words = texts[pick].split(" ");
      const query = words.filter(() => rand() < 0.6).join(" ") || words[0];
      const tenant = tenantOfChunk[pick];
      const s = performance.now();
      const res = await searchWithPlan(pool, embedder, { tenant, query, topK: 10, principals: [] });
      lat.push(performance.now() - s);
      strategies.add(res.strategy);
      const hits = res.hits;
      const s2 = performance.now();
      const forced = await searchWithPlan(pool, embedder, { tenant, query, topK: 10, principals: [], exactMaxChunks: 0 });
      latHnsw.push(performance.now() - s2);
      const qv = toVectorLiteral(embedLocal([query], 384)[0]);
      const c = await pool.connect();
      try {
        await c.query("BEGIN");
        await c.query("SET LOCAL enable_indexscan = off");
        await c.query("SET LOCAL enable_bitmapscan = off");
        const exact = await c.query(
          `SELECT c.chunk_id FROM chunks c JOIN search_pointers sp ON sp.index_version_id = c.index_version_id
            WHERE c.tenant_id = $1 AND c.dims = 384 ORDER BY c.embedding::vector(384) <=> $2::vector(384) LIMIT 10`,
          [tenant, qv],
        );
        await c.query("ROLLBACK");
        await c.query("BEGIN");
        await c.query("SET LOCAL hnsw.ef_search = 100");
        await c.query("SET LOCAL hnsw.iterative_scan = off");
        const off = await c.query(
          `SELECT c.chunk_id FROM chunks c JOIN search_pointers sp ON sp.index_version_id = c.index_version_id
            WHERE c.tenant_id = $1 AND c.dims = 384 ORDER BY c.embedding::vector(384) <=> $2::vector(384) LIMIT 10`,
          [tenant, qv],
        );
        if (i === 0) {
          const plan = await c.query(
            `EXPLAIN SELECT c.chunk_id FROM chunks c JOIN search_pointers sp ON sp.index_version_id = c.index_version_id
              WHERE c.tenant_id = 't0' AND c.dims = 384 ORDER BY c.embedding::vector(384) <=> '${qv}'::vector(384) LIMIT 10`,
          );
          usedIndex = plan.rows.some((r) => String(r["QUERY PLAN"]).includes("chunks_embedding_384_hnsw"));
        }
        await c.query("ROLLBACK");
        const truth = new Set(exact.rows.map((r) => r.chunk_id));
        recallSum += hits.filter((h) => truth.has(h.chunkId)).length / Math.max(1, truth.size);
        const source = `d${Math.floor(pick / PER_DOC)}-${(pick % PER_DOC) + 1}`;
        if (hits[0]?.chunkId === source) sourceFirst++;
        if (forced.hits[0]?.chunkId === source) sourceFirstHnsw++;
        recallHnswSum += forced.hits.filter((h) => truth.has(h.chunkId)).length / Math.max(1, truth.size);
        recallOffSum += off.rows.filter((r) => truth.has(r.chunk_id)).length / Math.max(1, truth.size);
      } finally {
        c.release();
      }
    }
    lat.sort((a, b) => a - b);
    latHnsw.sort((a, b) => a - b);
    const pgv = await serverVersion(pool);
    const ext = (await pool.query(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`)).rows[0].extversion;
    await pool.end();
    console.log(
      JSON.stringify(
        {
          bench: "search",
          method: "lib/search/search.ts (embed query + filtered HNSW query with iterative scan) timed per call; recall@10 vs exact search (index scans disabled) on the same tenant filter",
          machine: { cpus: os.cpus().length, node: process.version, postgres: pgv, pgvector: ext },
          data: { chunks: CHUNKS, tenants: TENANTS, chunksPerTenant: CHUNKS / TENANTS, dimensions: 384, seedSeconds: round3(seedSeconds), hnswBuildSeconds: round3(buildSeconds) },
          queries: QUERIES,
          default: {
            strategy: [...strategies].join(","),
            exactMaxChunks: EXACT_SEARCH_MAX_CHUNKS,
            latencyMs: { p50: round3(percentile(lat, 50)), p95: round3(percentile(lat, 95)), p99: round3(percentile(lat, 99)) },
            recallAt10: round3(recallSum / QUERIES),
            sourceChunkRankedFirst: round3(sourceFirst / QUERIES),
          },
          hnswForced: {
            note: "same queries with exactMaxChunks = 0: HNSW (ef_search 100) + iterative scan, candidate pool 40",
            latencyMs: { p50: round3(percentile(latHnsw, 50)), p95: round3(percentile(latHnsw, 95)), p99: round3(percentile(latHnsw, 99)) },
            recallAt10: round3(recallHnswSum / QUERIES),
            sourceChunkRankedFirst: round3(sourceFirstHnsw / QUERIES),
          },
          recallAt10HnswWithoutIterativeScan: round3(recallOffSum / QUERIES),
          planUsesHnswIndex: usedIndex,
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
