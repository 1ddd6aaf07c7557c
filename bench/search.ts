// Search benchmark: latency p50/p95/p99 and recall@10 of lib/search/search.ts at CHUNKS chunks,
// against an exact ranking of what the caller may see (same tenant, the document's active index
// version, ACL, embedding model).
//
// Data (deterministic, seeded):
// - documents of PER_DOC chunks spread round-robin over TENANTS tenants (default: 2 to 10 tenants,
//   100,000 chunks each at 1M, so each is past SEARCH_EXACT_MAX_CHUNKS and takes the HNSW path);
// - 10 % of all chunks are records of retained rollback versions: a RETIRED version 1 of every
//   ninth document, whose version 2 is active. RETAINED_EDIT_PCT (10) of a retained version's
//   chunks are an earlier wording of the active chunk (other text, a near-duplicate vector stored
//   for it: the worst case for result slots); the rest are the same text, whose one stored vector
//   both versions reference. RETAINED_EDIT_PCT=100 makes every retained chunk an edit;
// - 10 % are ACL-hidden: active versions whose ACL names a group the querying principals lack;
//   another ninth of the documents is restricted to a group they have (visible);
// - VECTORS=clustered (default): a generator shaped like real text embeddings. TOPICS topic
//   centroids live in a LATENT-dimensional subspace; a document sits near its topic, a chunk near
//   its document; the latent point is projected to 384 dimensions by a fixed random matrix, a
//   shared mean direction is added (real embeddings are anisotropic: unrelated texts still have
//   positive cosine) and isotropic noise on top, then L2-normalised. A query is a fresh point near
//   a random document (hidden ones included), not a copy of a chunk.
//   VECTORS=local: chunk texts drawn from per-topic vocabularies, embedded with the local embedder
//   (lib/pipeline/local-embedder.ts); a query is a subset of one chunk's words.
// Seeding writes chunk_vectors and chunks with binary COPY (vectors as float4, no text round trip)
// and the other tables with unnest batches; the HNSW index is dropped before and built after, with
// maintenance_work_mem sized from the estimated graph (so the build never spills) and
// max_parallel_maintenance_workers = cores - 1.
//   npm run bench:search                   CHUNKS=100000 QUERIES=200 VECTORS=clustered
//   CHUNKS=1000000 npm run bench:search    HNSW_M=16 HNSW_EF_CONSTRUCTION=64 EF_SEARCH=100
import pg from "pg";
import os from "node:os";
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { from as copyFrom } from "pg-copy-streams";
import { withBenchDatabase, percentile, round3, machineFacts, prng } from "./db";
import { embedLocal, LOCAL_MODEL } from "../lib/pipeline/local-embedder";
import { toVectorLiteral, type Embedder } from "../lib/embedding/types";
import { searchIn, searchWithPlan, EXACT_SEARCH_MAX_CHUNKS, HNSW_SEARCH } from "../lib/search/search";
import { vectorSearchSql } from "../lib/search/sql";
import { spaceIndexName } from "../lib/spaces/indexes";
import { spaceOfRow, SPACE_COLUMNS, type Space, type SpaceRow } from "../lib/spaces/types";

const env = (name: string, fallback: number) =>
  /^\d+$/.test(process.env[name] ?? "") ? Number(process.env[name]) : fallback;
const CHUNKS = env("CHUNKS", 100_000);
const PER_DOC = env("PER_DOC", 50);
const TENANTS = env("TENANTS", Math.max(2, Math.min(10, Math.round(CHUNKS / 100_000))));
const QUERIES = env("QUERIES", 200);
const WARMUP = env("WARMUP", 20);
const M = env("HNSW_M", 16);
const EF_CONSTRUCTION = env("HNSW_EF_CONSTRUCTION", 64);
const EF_SEARCH = env("EF_SEARCH", HNSW_SEARCH.efSearch);
const WRITE_COST = env("WRITE_COST_CHUNKS", 20_000);
const RETAINED_EDIT_PCT = Math.min(100, env("RETAINED_EDIT_PCT", 10));
const CODE_QUERIES = env("CODE_QUERIES", 100);
const EF_SWEEP = (process.env.EF_SWEEP ?? "")
  .split(",")
  .filter((x) => /^\d+$/.test(x))
  .map(Number);
const VECTORS = process.env.VECTORS === "local" ? "local" : "clustered";
const DIMS = 384;
const TOPICS = 300;
const LATENT = 16;
const MODEL = VECTORS === "local" ? LOCAL_MODEL : "bench-clustered-384";
const PRINCIPALS = ["user:reader@example.com", "group:staff"];
const TOPK = 10;
// The default index space of a fresh database (the migration's built-in local one, 384 dimensions):
// every row this bench writes takes it by default, and search reads it through its partial index.
const SPACE_ID = 1;
const HNSW_INDEX = spaceIndexName(SPACE_ID);
const SQL_SPACE = { id: SPACE_ID, dims: DIMS };

const rand = prng(7);

// ---------- the clustered generator ----------

/** Box–Muller over the seeded PRNG. */
function gauss(): number {
  const u = 1 - rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}
// A table of standard normals read at random offsets: the per-coordinate noise of a million
// 384-dimension vectors would otherwise be most of the seeding time.
const NOISE = Float32Array.from({ length: 1 << 20 }, gauss);
const PROJECTION = Float32Array.from({ length: LATENT * DIMS }, () => gauss() / Math.sqrt(LATENT));
const MEAN = Float32Array.from({ length: DIMS }, () => gauss() * 0.7);
const CENTROIDS = Array.from({ length: TOPICS }, () => Float64Array.from({ length: LATENT }, gauss));

function near(center: Float64Array, spread: number): Float64Array {
  return center.map((x) => x + spread * gauss());
}

/** Latent point → unit 384-dimension vector: projection, mean direction, noise. */
function embedLatent(latent: Float64Array, noise = 0.6): Float32Array {
  const v = new Float32Array(DIMS);
  for (let j = 0; j < LATENT; j++) {
    const l = latent[j];
    const row = j * DIMS;
    for (let k = 0; k < DIMS; k++) v[k] += l * PROJECTION[row + k];
  }
  const off = Math.floor(rand() * NOISE.length);
  let norm = 0;
  for (let k = 0; k < DIMS; k++) {
    v[k] += MEAN[k] + noise * NOISE[(off + k * 7919) & (NOISE.length - 1)];
    norm += v[k] * v[k];
  }
  norm = Math.sqrt(norm);
  for (let k = 0; k < DIMS; k++) v[k] /= norm;
  return v;
}

/** An edited copy: the same vector moved a little. */
function perturb(src: Float32Array, amount: number): Float32Array {
  const off = Math.floor(rand() * NOISE.length);
  const v = new Float32Array(DIMS);
  let norm = 0;
  for (let k = 0; k < DIMS; k++) {
    v[k] = src[k] + (amount / Math.sqrt(DIMS)) * NOISE[(off + k * 104729) & (NOISE.length - 1)];
    norm += v[k] * v[k];
  }
  norm = Math.sqrt(norm);
  for (let k = 0; k < DIMS; k++) v[k] /= norm;
  return v;
}

// ---------- texts ----------

const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa", "do", "gu", "fe", "hi", "ja", "bo"];
const VOCAB = Array.from({ length: 5000 }, (_, i) => {
  let w = "";
  for (let n = i + 17; w.length < 6 || n > 0; n = Math.floor(n / 16)) w += SYLLABLES[n % 16];
  return w;
});
function chunkText(topic: number): string {
  const words: string[] = [];
  for (let i = 0; i < 24; i++) {
    words.push(
      rand() < 0.5
        ? VOCAB[(topic * 37 + Math.floor(rand() * 30) * 101) % VOCAB.length]
        : VOCAB[Math.floor(rand() ** 2 * VOCAB.length)],
    );
  }
  return words.join(" ");
}

// ---------- binary COPY ----------

const COPY_HEADER = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);
const uuidBytes = (u: string) => Buffer.from(u.replaceAll("-", ""), "hex");
function field(b: Buffer): Buffer[] {
  const len = Buffer.alloc(4);
  len.writeInt32BE(b.length);
  return [len, b];
}
const int4 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const int2 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
/** pgvector's binary form: int16 dimensions, int16 unused, float4 big-endian each. */
function vectorBytes(v: Float32Array): Buffer {
  const b = Buffer.alloc(4 + 4 * v.length);
  b.writeInt16BE(v.length, 0);
  for (let k = 0; k < v.length; k++) b.writeFloatBE(v[k], 4 + 4 * k);
  return b;
}

/** One product code per document, named once, in its first chunk; neighbours differ by one digit. */
const codeOf = (d: Doc) => `KT-${d.key.slice(4).padStart(6, "0")}-${"ABCDEFGHJK"[Number(d.key.slice(4)) % 10]}`;

type Doc = {
  id: string;
  tenant: string;
  key: string;
  topic: number;
  center: Float64Array;
  acl: string[];
  retained: boolean;
  activeIv: string;
  retainedIv: string | null;
};
type ChunkRow = {
  iv: string;
  ordinal: number;
  chunkId: string;
  doc: Doc;
  text: string;
  hash: string;
  vectorId: number;
};

const int8 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};

function chunkTuple(r: ChunkRow): Buffer {
  const parts: Buffer[] = [int2(11)];
  parts.push(
    ...field(uuidBytes(r.iv)),
    ...field(int4(r.ordinal)),
    ...field(Buffer.from(r.chunkId)),
    ...field(Buffer.from(r.doc.tenant)),
  );
  parts.push(
    ...field(uuidBytes(r.doc.id)),
    ...field(int2(2)),
    ...field(Buffer.from("")),
    ...field(Buffer.from(r.text)),
  );
  parts.push(...field(Buffer.from(r.hash)), ...field(int4(DIMS)), ...field(int8(r.vectorId)));
  return Buffer.concat(parts);
}

/** One stored content: (id, tenant, document, content hash, model, dims, chunker version, vector, text). */
function vectorTuple(id: number, doc: Doc, hash: string, vec: Float32Array, text: string): Buffer {
  const parts: Buffer[] = [int2(9)];
  parts.push(
    ...field(int8(id)),
    ...field(Buffer.from(doc.tenant)),
    ...field(uuidBytes(doc.id)),
    ...field(Buffer.from(hash)),
  );
  parts.push(
    ...field(Buffer.from(MODEL)),
    ...field(int4(DIMS)),
    ...field(Buffer.from("c")),
    ...field(vectorBytes(vec)),
    ...field(Buffer.from(text)),
  );
  return Buffer.concat(parts);
}

// ---------- seeding ----------

async function seed(pool: pg.Pool): Promise<{ docs: Doc[]; counts: Record<string, number> }> {
  // A ninth of the documents keep a retained version (10 % of chunks), a ninth is hidden (10 %).
  const units = Math.floor(CHUNKS / PER_DOC);
  const nDocs = Math.round((units * 9) / 10);
  const docs: Doc[] = [];
  let retainedSoFar = 0;
  for (let i = 0; i < nDocs; i++) {
    const topic = Math.floor(rand() * TOPICS);
    const retained = i % 9 === 0 && retainedSoFar < units - nDocs;
    if (retained) retainedSoFar++;
    docs.push({
      id: randomUUID(),
      tenant: `t${i % TENANTS}`,
      key: `doc-${i}`,
      topic,
      center: near(CENTROIDS[topic], 0.5),
      acl: i % 9 === 4 ? ["group:finance"] : i % 9 === 7 ? ["group:staff"] : [],
      retained,
      activeIv: randomUUID(),
      retainedIv: retained ? randomUUID() : null,
    });
  }
  for (let t = 0; t < TENANTS; t++) await pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1)`, [`t${t}`]);
  for (let s = 0; s < docs.length; s += 5000) {
    const b = docs.slice(s, s + 5000);
    const ids = b.map((d) => d.id);
    const tenants = b.map((d) => d.tenant);
    const versions = b.map((d) => (d.retained ? 2 : 1));
    await pool.query(
      `INSERT INTO documents (id, tenant_id, key, title, business_version) SELECT id, t, k, k, v FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[]) AS u(id, t, k, v)`,
      [ids, tenants, b.map((d) => d.key), versions],
    );
    // Every version of every document, with its ACL (a retained version 1 is readable by all).
    const dvDoc: string[] = [];
    const dvTenant: string[] = [];
    const dvNum: number[] = [];
    const dvAcl: string[] = [];
    const ivId: string[] = [];
    const ivStatus: string[] = [];
    const version = (d: Doc, n: number, acl: string[], iv: string, status: string) => {
      dvDoc.push(d.id);
      dvTenant.push(d.tenant);
      dvNum.push(n);
      dvAcl.push(`{${acl.join(",")}}`);
      ivId.push(iv);
      ivStatus.push(status);
    };
    for (const d of b) {
      if (d.retained) version(d, 1, [], d.retainedIv!, "RETIRED");
      version(d, d.retained ? 2 : 1, d.acl, d.activeIv, "ACTIVE");
    }
    await pool.query(
      `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, acl, published_by)
       SELECT gen_random_uuid(), t, d, n, 'Doc', 'text/plain', '\\x00', 1, 'x', a::text[], 'bench' FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[]) AS u(d, t, n, a)`,
      [dvDoc, dvTenant, dvNum, dvAcl],
    );
    await pool.query(
      `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
       SELECT i, t, d, n, s, 'c', $6, ${DIMS}, ${PER_DOC}, ${PER_DOC} FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[], $5::text[]) AS u(i, t, d, n, s)`,
      [ivId, dvTenant, dvDoc, dvNum, ivStatus, MODEL],
    );
    await pool.query(
      `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) SELECT d, t, i, n FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[]) AS u(d, t, i, n)`,
      [ids, tenants, b.map((d) => d.activeIv), versions],
    );
  }
  const counts = {
    documents: docs.length,
    activeChunks: 0,
    retainedChunks: 0,
    retainedEditedChunks: 0,
    hiddenChunks: 0,
    storedVectors: 0,
  };
  // Vectors first (the records reference them), records kept meanwhile: they carry no vector.
  const records: Buffer[] = [COPY_HEADER];
  const editEvery = RETAINED_EDIT_PCT > 0 ? 100 / RETAINED_EDIT_PCT : Infinity;
  function* vectorTuples(): Generator<Buffer> {
    yield COPY_HEADER;
    for (const d of docs) {
      const texts = Array.from({ length: PER_DOC }, (_, o) =>
        o === 0 ? `${chunkText(d.topic)} part ${codeOf(d)}` : chunkText(d.topic),
      );
      const vecs =
        VECTORS === "local"
          ? embedLocal(texts, DIMS).map((v) => Float32Array.from(v))
          : texts.map(() => embedLatent(near(d.center, 0.5)));
      const vrows: Buffer[] = [];
      const rrows: Buffer[] = [];
      for (let o = 0; o < PER_DOC; o++) {
        const id = ++counts.storedVectors;
        vrows.push(vectorTuple(id, d, `h${o}`, vecs[o], texts[o]));
        rrows.push(
          chunkTuple({
            iv: d.activeIv,
            ordinal: o,
            chunkId: `${d.key}-v${d.retained ? 2 : 1}-${o}`,
            doc: d,
            text: texts[o],
            hash: `h${o}`,
            vectorId: id,
          }),
        );
        if (!d.retained) continue;
        if (o % editEvery < 1) {
          // An earlier wording: its own text, hash and stored vector, near the active one.
          const old = ++counts.storedVectors;
          vrows.push(vectorTuple(old, d, `h${o}-v1`, perturb(vecs[o], 0.15), `${texts[o]} (earlier wording)`));
          rrows.push(
            chunkTuple({
              iv: d.retainedIv!,
              ordinal: o,
              chunkId: `${d.key}-v1-${o}`,
              doc: d,
              text: `${texts[o]} (earlier wording)`,
              hash: `h${o}-v1`,
              vectorId: old,
            }),
          );
          counts.retainedEditedChunks++;
        } else {
          rrows.push(
            chunkTuple({
              iv: d.retainedIv!,
              ordinal: o,
              chunkId: `${d.key}-v1-${o}`,
              doc: d,
              text: texts[o],
              hash: `h${o}`,
              vectorId: id,
            }),
          );
        }
      }
      records.push(Buffer.concat(rrows));
      counts.activeChunks += PER_DOC;
      if (d.retained) counts.retainedChunks += PER_DOC;
      if (d.acl.includes("group:finance")) counts.hiddenChunks += PER_DOC;
      yield Buffer.concat(vrows);
    }
    yield int2(-1);
  }
  const client = await pool.connect();
  try {
    await pipeline(
      Readable.from(vectorTuples()),
      client.query(
        copyFrom(
          `COPY chunk_vectors (id, tenant_id, document_id, content_hash, embedding_model, dims, chunker_version, embedding, text) FROM STDIN WITH (FORMAT binary)`,
        ),
      ),
    );
    records.push(int2(-1));
    await pipeline(
      Readable.from(records),
      client.query(
        copyFrom(
          `COPY chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, level, section_path, text, content_hash, dims, vector_id) FROM STDIN WITH (FORMAT binary)`,
        ),
      ),
    );
    await client.query(`SELECT setval(pg_get_serial_sequence('chunk_vectors', 'id'), $1)`, [counts.storedVectors]);
  } finally {
    client.release();
  }
  return { docs, counts };
}

// ---------- index build ----------

/**
 * pgvector's in-memory graph per element: the vector datum (4 bytes a dimension + 8), the
 * neighbour lists (2m candidates of 16 bytes at layer 0, m on each upper layer, 1/(m-1) of the
 * elements on average), and about 200 bytes of element header, list headers and pointers.
 */
export function hnswGraphBytes(rows: number, dims: number, m: number, bytesPerDim = 4): number {
  return Math.ceil(rows * (bytesPerDim * dims + 8 + 16 * (2 * m + m / (m - 1)) + 200));
}

async function buildIndex(pool: pg.Pool, rows: number) {
  const estimate = hnswGraphBytes(rows, DIMS, M);
  // Room above the estimate; never below PostgreSQL's default.
  const mwmMB = Math.max(64, Math.ceil((estimate * 1.25) / 2 ** 20));
  const workers = Math.max(0, os.cpus().length - 1);
  const c = await pool.connect();
  try {
    await c.query(`SET maintenance_work_mem = '${mwmMB}MB'`);
    await c.query(`SET max_parallel_maintenance_workers = ${workers}`);
    const t0 = performance.now();
    await c.query(
      `CREATE INDEX ${HNSW_INDEX} ON chunk_vectors USING hnsw ((embedding::vector(${DIMS})) vector_cosine_ops) WITH (m = ${M}, ef_construction = ${EF_CONSTRUCTION}) WHERE space_id = ${SPACE_ID}`,
    );
    const seconds = (performance.now() - t0) / 1000;
    const size = (await c.query(`SELECT pg_relation_size('${HNSW_INDEX}')::bigint AS b`)).rows[0].b;
    return {
      seconds,
      estimatedGraphMB: Math.round(estimate / 2 ** 20),
      maintenanceWorkMemMB: mwmMB,
      parallelWorkers: workers,
      indexMB: Math.round(Number(size) / 2 ** 20),
    };
  } finally {
    c.release();
  }
}

// ---------- write cost of the full-text column ----------

/**
 * Content inserts with and without the full-text columns, side by side in one run: `chunk_vectors`
 * as migrated (search_language trigger, generated tsv, GIN index) against `chunk_vectors_before`,
 * the same table without them (same columns, indexes and foreign key otherwise). Batches of PER_DOC
 * new contents of about 250 words with their vectors, written with the statement shape of the
 * indexing pipeline (INSERT … SELECT from unnest), alternating between the two tables so load on
 * the machine falls on both alike. Records referencing the content are not part of it: they carry
 * no full-text column. `withHnsw` keeps the HNSW index on both tables during the inserts.
 */
async function measureWriteCost(pool: pg.Pool, total: number, withHnsw: boolean) {
  const c = await pool.connect();
  try {
    await c.query(
      `CREATE TABLE chunk_vectors_before (LIKE chunk_vectors INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING IDENTITY)`,
    );
    await c.query(`ALTER TABLE chunk_vectors_before DROP COLUMN tsv, DROP COLUMN search_language`);
    await c.query(`ALTER TABLE chunk_vectors_before ADD FOREIGN KEY (document_id) REFERENCES documents(id)`);
    if (!withHnsw) {
      for (const r of (
        await c.query(
          `SELECT indexname FROM pg_indexes WHERE tablename IN ('chunk_vectors', 'chunk_vectors_before') AND indexdef LIKE '%hnsw%'`,
        )
      ).rows)
        await c.query(`DROP INDEX ${r.indexname}`);
    }
    await c.query(`INSERT INTO tenants (id, name) VALUES ('w', 'w') ON CONFLICT DO NOTHING`);
    const docId = randomUUID();
    await c.query(`INSERT INTO documents (id, tenant_id, key, title) VALUES ($1, 'w', $2, 'w')`, [
      docId,
      `w-${withHnsw ? "h" : "n"}`,
    ]);
    const ms = { before: 0, after: 0 };
    const batches = Math.ceil(total / 2 / PER_DOC);
    for (let b = 0; b < batches * 2; b++) {
      const table = b % 2 === 0 ? "chunk_vectors_before" : "chunk_vectors";
      const texts = Array.from({ length: PER_DOC }, () =>
        Array.from({ length: 10 }, () => chunkText(Math.floor(rand() * TOPICS))).join(" "),
      );
      const vecs = texts.map(() => toVectorLiteral(Array.from(embedLatent(CENTROIDS[Math.floor(rand() * TOPICS)]))));
      const t0 = performance.now();
      await c.query(
        `INSERT INTO ${table} (tenant_id, document_id, content_hash, embedding_model, dims, chunker_version, embedding, text)
         SELECT 'w', $1, $2 || '-' || o, $3, ${DIMS}, 'c', e::vector, t FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS u(t, e, o)`,
        [docId, String(b), MODEL, texts, vecs],
      );
      ms[b % 2 === 0 ? "before" : "after"] += performance.now() - t0;
    }
    const n = batches * PER_DOC;
    await c.query(`DROP TABLE chunk_vectors_before`);
    await c.query(`DELETE FROM chunk_vectors WHERE tenant_id = 'w'`);
    const before = n / (ms.before / 1000);
    const after = n / (ms.after / 1000);
    return {
      contentsEach: n,
      hnswIndex: withHnsw,
      beforeContentsPerSecond: Math.round(before),
      afterContentsPerSecond: Math.round(after),
      slowdown: round3(before / after),
    };
  } finally {
    c.release();
  }
}

// ---------- queries and ground truth ----------

type Query = { text: string; tenant: string; vec: number[] };

function makeQueries(docs: Doc[]): Query[] {
  return Array.from({ length: WARMUP + QUERIES }, (_, i) => {
    const d = docs[Math.floor(rand() * docs.length)];
    if (VECTORS === "local") {
      const words = chunkText(d.topic).split(" ");
      const text = words.filter(() => rand() < 0.6).join(" ") || words[0];
      return { text, tenant: d.tenant, vec: embedLocal([text], DIMS)[0] };
    }
    return { text: `q${i}`, tenant: d.tenant, vec: Array.from(embedLatent(near(d.center, 0.6))) };
  });
}

/**
 * The bench's own statement of what the caller may see, ranked exactly: "+ 0" keeps the planner
 * off the HNSW index (ordering by the bare distance would take it), while the tenant's records and
 * their vectors are still found through their B-tree indexes.
 */
async function truth(pool: pg.Pool, q: Query): Promise<string[]> {
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    const { rows } = await c.query<{ chunk_id: string }>(
      `SELECT c.chunk_id FROM chunks c
         JOIN chunk_vectors v ON v.id = c.vector_id
         JOIN search_pointers sp ON sp.index_version_id = c.index_version_id
         JOIN index_versions iv ON iv.id = c.index_version_id
         JOIN documents d ON d.id = c.document_id
         JOIN document_versions dv ON dv.document_id = c.document_id AND dv.version_number = sp.version_number
        WHERE c.tenant_id = $1 AND c.dims = ${DIMS} AND iv.embedding_model = $4 AND d.deleted_at IS NULL AND (dv.acl = '{}' OR dv.acl && $3::text[])
        ORDER BY (v.embedding::vector(${DIMS}) <=> $2::vector(${DIMS})) + 0, c.chunk_id LIMIT ${TOPK}`,
      [q.tenant, toVectorLiteral(q.vec), PRINCIPALS, MODEL],
    );
    await c.query("ROLLBACK");
    return rows.map((r) => r.chunk_id);
  } finally {
    c.release();
  }
}

/**
 * An earlier design, for a same-run comparison: a fixed pool of the tenant's nearest vectors
 * (40, doubling up to 2,000 while too few survive), their records filtered for visibility afterwards.
 */
async function postFilter(pool: pg.Pool, q: Query): Promise<string[]> {
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    await c.query(`SET LOCAL hnsw.ef_search = ${EF_SEARCH}`);
    await c.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    for (let candidates = 40; ; candidates = Math.min(candidates * 2, 2000)) {
      const { rows } = await c.query<{ chunk_id: string }>(
        `WITH cand AS (SELECT v.id, v.document_id, v.embedding::vector(${DIMS}) <=> $2::vector(${DIMS}) AS distance
                          FROM chunk_vectors v WHERE v.tenant_id = $1 AND v.dims = ${DIMS} ORDER BY v.embedding::vector(${DIMS}) <=> $2::vector(${DIMS}) LIMIT ${candidates})
         SELECT c.chunk_id FROM cand x
           JOIN search_pointers sp ON sp.document_id = x.document_id
           JOIN chunks c ON c.vector_id = x.id AND c.index_version_id = sp.index_version_id
           JOIN document_versions dv ON dv.document_id = sp.document_id AND dv.version_number = sp.version_number
          WHERE cardinality(dv.acl) = 0 OR dv.acl && $3::text[] ORDER BY x.distance, c.chunk_id LIMIT ${TOPK}`,
        [q.tenant, toVectorLiteral(q.vec), PRINCIPALS],
      );
      if (rows.length >= TOPK || candidates >= 2000) {
        await c.query("ROLLBACK");
        return rows.map((r) => r.chunk_id);
      }
    }
  } finally {
    c.release();
  }
}

/** The server's own planning and execution time of the search statement (no client, no network). */
async function serverMs(pool: pg.Pool, q: Query): Promise<{ execution: number; planning: number }> {
  const c = await pool.connect();
  try {
    await c.query(`BEGIN; SET LOCAL hnsw.ef_search = ${EF_SEARCH}; SET LOCAL hnsw.iterative_scan = relaxed_order`);
    const { rows } = await c.query(
      `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${vectorSearchSql(SQL_SPACE, false, TOPK)}`,
      [q.tenant, toVectorLiteral(q.vec), null, PRINCIPALS],
    );
    await c.query("ROLLBACK");
    const out = rows[0]["QUERY PLAN"][0];
    return { execution: Number(out["Execution Time"]), planning: Number(out["Planning Time"]) };
  } finally {
    c.release();
  }
}

async function explain(pool: pg.Pool, q: Query): Promise<{ plan: string[]; visibilityInsideHnswScan: boolean }> {
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    await c.query(`SET LOCAL hnsw.ef_search = ${EF_SEARCH}`);
    await c.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    const { rows } = await c.query(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${vectorSearchSql(SQL_SPACE, false, TOPK)}`,
      [q.tenant, toVectorLiteral(q.vec), null, PRINCIPALS],
    );
    await c.query("ROLLBACK");
    const plan = rows.map((r) => String(r["QUERY PLAN"]));
    // The HNSW scan must be the one the limit reads, with the visibility test as its own filter.
    const scan = plan.findIndex((l) => l.includes(`Index Scan using ${HNSW_INDEX}`));
    const filter = plan.slice(scan + 1).find((l) => l.trim().startsWith("Filter:")) ?? "";
    const parent =
      plan
        .slice(0, Math.max(0, scan))
        .reverse()
        .find((l) => l.trim().startsWith("->")) ?? "";
    return { plan, visibilityInsideHnswScan: scan > 0 && /Limit/.test(parent) && filter.includes("SubPlan") };
  } finally {
    c.release();
  }
}

async function main() {
  const result = await withBenchDatabase("search", async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on("error", () => undefined); // the database is dropped under idle clients at the end
    const machine = await machineFacts(pool);
    const writeCost =
      WRITE_COST > 0
        ? [
            await measureWriteCost(pool, Math.min(WRITE_COST, 4000), true),
            await measureWriteCost(pool, WRITE_COST, false),
          ]
        : null;
    await pool.query(`DROP INDEX IF EXISTS ${HNSW_INDEX}`);
    await pool.query(`DROP INDEX chunk_vectors_tsv_idx`);
    // The bench's tenants keep the default configuration; the per-row lookup would only slow the load.
    await pool.query(`ALTER TABLE chunk_vectors DISABLE TRIGGER chunk_vectors_search_language`);
    const t0 = performance.now();
    const { docs, counts } = await seed(pool);
    const copySeconds = (performance.now() - t0) / 1000;
    await pool.query(`ANALYZE`);
    const seedSeconds = (performance.now() - t0) / 1000;
    const rows = counts.activeChunks + counts.retainedChunks;
    const build = await buildIndex(pool, counts.storedVectors);
    const g0 = performance.now();
    await pool.query(`ALTER TABLE chunk_vectors ENABLE TRIGGER chunk_vectors_search_language`);
    await pool.query(`CREATE INDEX chunk_vectors_tsv_idx ON chunk_vectors USING gin (tsv)`);
    const ginSeconds = (performance.now() - g0) / 1000;
    await pool.query(`ANALYZE chunks, chunk_vectors`);

    const queries = makeQueries(docs);
    // Labelled queries: a bare product code, whose one chunk is the right answer. The embedding of
    // a bare code says nothing of the text around it: with clustered vectors it is a point near a
    // random topic; with VECTORS=local it is the local embedder's vector of the code.
    const visibleDocs = docs.filter((d) => !d.acl.includes("group:finance"));
    const codeQueries = Array.from({ length: CODE_QUERIES }, () => {
      const d = visibleDocs[Math.floor(rand() * visibleDocs.length)];
      const text = codeOf(d);
      return {
        text,
        tenant: d.tenant,
        target: `${d.key}-v${d.retained ? 2 : 1}-0`,
        vec:
          VECTORS === "local"
            ? embedLocal([text], DIMS)[0]
            : Array.from(embedLatent(near(CENTROIDS[Math.floor(rand() * TOPICS)], 0.5))),
      };
    });
    const vecOf = new Map([...queries, ...codeQueries].map((q) => [q.text, q.vec]));
    const embedder: Embedder = {
      model: MODEL,
      dimensions: DIMS,
      embed: async (texts) => texts.map((t) => vecOf.get(t) ?? embedLocal([t], DIMS)[0]),
    };
    const where = { space: await benchSpace(pool), embedder };
    const lat: number[] = [];
    const ping: number[] = [];
    const server: number[] = [];
    const planning: number[] = [];
    const repeat: number[] = [];
    const truths: Set<string>[] = [];
    let recallSum = 0;
    let recallPostSum = 0;
    let invisible = 0;
    const strategies: Record<string, number> = {};
    const unprepared: number[] = [];
    for (const [i, q] of queries.entries()) {
      // Every other query goes the way the embedded database sends it (unnamed statements, the
      // settings in a transaction of its own), so both ways are timed on the same data in one run.
      const prepared = i % 2 === 0;
      const s = performance.now();
      const res = await searchWithPlan(pool, where, {
        tenant: q.tenant,
        query: q.text,
        topK: TOPK,
        principals: PRINCIPALS,
        efSearch: EF_SEARCH,
        prepared,
      });
      const ms = performance.now() - s;
      if (i < WARMUP) continue;
      (prepared ? lat : unprepared).push(ms);
      const sm = await serverMs(pool, q);
      server.push(sm.execution);
      planning.push(sm.planning);
      // The same search again, its pages now cached: what a first visit to the data adds.
      const r0 = performance.now();
      await searchWithPlan(pool, where, {
        tenant: q.tenant,
        query: q.text,
        topK: TOPK,
        principals: PRINCIPALS,
        efSearch: EF_SEARCH,
      });
      repeat.push(performance.now() - r0);
      // A bare round trip beside each search: what the machine's load adds to any query.
      const p0 = performance.now();
      await pool.query("SELECT 1");
      ping.push(performance.now() - p0);
      strategies[res.strategy] = (strategies[res.strategy] ?? 0) + 1;
      const exact = new Set(await truth(pool, q));
      truths[i] = exact;
      const got = res.hits.map((h) => h.chunkId);
      recallSum += got.filter((id) => exact.has(id)).length / Math.max(1, exact.size);
      // A retained (-v1- of a document now at v2) or finance-only chunk in the answer is a leak.
      invisible += res.hits.filter(
        (h) => h.chunkId.includes("-v1-") && docs[Number(h.documentKey.slice(4))].retained,
      ).length;
      invisible += res.hits.filter((h) => docs[Number(h.documentKey.slice(4))].acl.includes("group:finance")).length;
      const post = await postFilter(pool, q);
      recallPostSum += post.filter((id) => exact.has(id)).length / Math.max(1, exact.size);
    }
    lat.sort((a, b) => a - b);
    ping.sort((a, b) => a - b);
    server.sort((a, b) => a - b);
    planning.sort((a, b) => a - b);
    unprepared.sort((a, b) => a - b);
    repeat.sort((a, b) => a - b);
    // The same queries at other ef_search values: what recall the walk's width buys, and its cost.
    const efSweep: Record<string, unknown>[] = [];
    for (const ef of EF_SWEEP) {
      const ms: number[] = [];
      let recall = 0;
      for (const [i, q] of queries.entries()) {
        if (i < WARMUP) continue;
        const t0 = performance.now();
        const res = await searchWithPlan(pool, where, {
          tenant: q.tenant,
          query: q.text,
          topK: TOPK,
          principals: PRINCIPALS,
          efSearch: ef,
        });
        ms.push(performance.now() - t0);
        recall += res.hits.filter((h) => truths[i].has(h.chunkId)).length / Math.max(1, truths[i].size);
      }
      ms.sort((a, b) => a - b);
      efSweep.push({
        ef_search: ef,
        p50Ms: round3(percentile(ms, 50)),
        p95Ms: round3(percentile(ms, 95)),
        recallAt10: round3(recall / QUERIES),
      });
    }
    const modes: Record<string, unknown> = {};
    for (const mode of ["vector", "text", "hybrid"] as const) {
      const ms: number[] = [];
      let found = 0;
      let first = 0;
      for (const q of codeQueries) {
        const t0 = performance.now();
        const hits = await searchIn(pool, where, {
          tenant: q.tenant,
          query: q.text,
          topK: TOPK,
          principals: PRINCIPALS,
          mode,
          efSearch: EF_SEARCH,
        });
        ms.push(performance.now() - t0);
        const at = hits.findIndex((h) => h.chunkId === q.target);
        if (at >= 0) found++;
        if (at === 0) first++;
      }
      ms.sort((a, b) => a - b);
      modes[mode] = {
        p50Ms: round3(percentile(ms, 50)),
        p95Ms: round3(percentile(ms, 95)),
        recallAt10: round3(found / codeQueries.length),
        rankedFirst: round3(first / codeQueries.length),
      };
    }
    const plan = await explain(pool, queries[WARMUP]);
    process.stderr.write(`${plan.plan.join("\n")}\n`);
    const ext = (await pool.query(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`)).rows[0].extversion;
    await pool.end();
    return {
      bench: "search",
      date: new Date().toISOString(),
      method:
        "lib/search/search.ts searchWithPlan (query vector given, tenant + ACL principals, topK 10) timed per call after warm-up, as named statements (the default on PostgreSQL) for the even queries and unnamed (unpreparedMs) for the odd ones; recall@10 against an exact ranking (no HNSW) of the chunks the caller may see: same tenant, active index version, ACL, model",
      machine: { ...machine, pgvector: ext, note: "2-core machine shared with other work: latencies are noisy" },
      chunks: rows,
      vectors: VECTORS,
      data: {
        ...counts,
        retainedEditPct: RETAINED_EDIT_PCT,
        tenants: TENANTS,
        chunksPerTenant: Math.round(rows / TENANTS),
        perDocument: PER_DOC,
        dimensions: DIMS,
        topics: TOPICS,
        latentDimensions: LATENT,
        exactMaxChunks: EXACT_SEARCH_MAX_CHUNKS,
        seedSeconds: round3(seedSeconds),
        copySeconds: round3(copySeconds),
      },
      queries: QUERIES,
      hnsw: {
        m: M,
        ef_construction: EF_CONSTRUCTION,
        ef_search: EF_SEARCH,
        iterative_scan: "relaxed_order",
        max_scan_tuples: HNSW_SEARCH.maxScanTuples,
      },
      build: { ...build, seconds: round3(build.seconds) },
      strategies,
      efSearchSweep: efSweep,
      fullTextWriteCost: writeCost,
      productCodeQueries: {
        queries: CODE_QUERIES,
        note: "a bare product code named in exactly one visible chunk; recall@10 = that chunk in the top 10",
        ginBuildSeconds: round3(ginSeconds),
        ...modes,
      },
      invisibleHits: invisible,
      planVisibilityInsideHnswScan: plan.visibilityInsideHnswScan,
      postFilterRecallAt10: round3(recallPostSum / QUERIES),
      indexBuildSeconds: round3(build.seconds),
      serverExecutionMs: {
        note: "EXPLAIN ANALYZE Execution Time of the same HNSW statement, run right after each search",
        p50: round3(percentile(server, 50)),
        p95: round3(percentile(server, 95)),
      },
      unpreparedMs: {
        note: "every other query, sent unnamed with its settings in a transaction (the embedded database's way, SEARCH_PREPARED_STATEMENTS=false); p50Ms/p95Ms/p99Ms are the named statements' half",
        p50: round3(percentile(unprepared, 50)),
        p95: round3(percentile(unprepared, 95)),
        samples: unprepared.length,
      },
      serverPlanningMs: {
        note: "EXPLAIN ANALYZE Planning Time of the same statement",
        p50: round3(percentile(planning, 50)),
        p95: round3(percentile(planning, 95)),
      },
      repeatMs: {
        note: "the same search again right after (its pages cached), timed like p95Ms",
        p50: round3(percentile(repeat, 50)),
        p95: round3(percentile(repeat, 95)),
      },
      roundTripMs: {
        note: "SELECT 1 beside each search: load on the shared machine",
        p50: round3(percentile(ping, 50)),
        p95: round3(percentile(ping, 95)),
      },
      p50Ms: round3(percentile(lat, 50)),
      p95Ms: round3(percentile(lat, 95)),
      p99Ms: round3(percentile(lat, 99)),
      recallAt10: round3(recallSum / QUERIES),
      totalSeconds: round3((performance.now() - t0) / 1000),
    };
  });
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/** The index space the bench's rows are in (SPACE_ID), as search reads it. */
async function benchSpace(pool: pg.Pool): Promise<Space> {
  const { rows } = await pool.query<SpaceRow>(`SELECT ${SPACE_COLUMNS} FROM embedding_spaces WHERE id = $1`, [
    SPACE_ID,
  ]);
  if (!rows[0]) throw new Error(`index space ${SPACE_ID} is missing: the bench expects a freshly migrated database`);
  return spaceOfRow(rows[0]);
}
