import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { migrate } from "../../lib/db/migrate";
import { databaseBefore } from "../helpers/migrations";

// Records held their own vector before; the migration stores one vector per (document, content,
// embedding space), points every record at it, and moves each dimension's HNSW index along.
const MOVE = "20261130150000_chunk_vectors";
const db = databaseBefore(MOVE);

const vec = (x: number, dims: number) => `[${Array.from({ length: dims }, (_, i) => (i === 0 ? x : 0.5)).join(",")}]`;

describe("chunk vectors migration", () => {
  it("stores each (document, content, space) vector once, prefers the serving version's, and moves every HNSW index", async () => {
    await migrate(db.t.url, { dir: db.before });
    const doc = randomUUID();
    await db.t.pool.query(`INSERT INTO tenants (id, name) VALUES ('acme', 'Acme')`);
    await db.t.pool.query(
      `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, 'acme', 'k', 'K', 3)`,
      [doc],
    );
    const iv = [randomUUID(), randomUUID(), randomUUID()];
    // v1 and v2 in one space (v2 serving), v3 in another model: same content hashes throughout.
    for (const [i, model] of [
      [0, "m"],
      [1, "m"],
      [2, "other"],
    ] as const) {
      await db.t.pool.query(
        `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
         VALUES ($1, 'acme', $2, $3, $4, 'c1', $5, 3, 2, 2)`,
        [iv[i], doc, i + 1, i === 1 ? "ACTIVE" : "RETIRED", model],
      );
    }
    await db.t.pool.query(
      `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, 'acme', $2, 2)`,
      [doc, iv[1]],
    );
    const rows: [string, number, string, string][] = [
      [iv[0], 0, "h-same", vec(0.1, 3)], // an older copy of the serving version's vector, slightly off
      [iv[0], 1, "h-old", vec(0.2, 3)],
      [iv[1], 0, "h-same", vec(0.9, 3)],
      [iv[1], 1, "h-new", vec(0.3, 3)],
      [iv[2], 0, "h-same", vec(0.4, 3)],
      [iv[2], 1, "h-new", vec(0.5, 3)],
    ];
    for (const [v, ordinal, hash, e] of rows) {
      await db.t.pool.query(
        `INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, text, content_hash, dims, embedding) VALUES ($1, $2, $3, 'acme', $4, 'refunds', $5, 3, $6)`,
        [v, ordinal, `c${ordinal}`, doc, hash, e],
      );
    }
    // A second dimension in use had its own index on chunks, made at a worker's start.
    await db.t.pool.query(
      `CREATE INDEX chunks_embedding_3_hnsw ON chunks USING hnsw ((embedding::vector(3)) vector_cosine_ops) WHERE dims = 3`,
    );

    expect((await migrate(db.t.url)).applied).toContain(MOVE);

    const vectors = (
      await db.t.pool.query(
        `SELECT content_hash, embedding_model, embedding::text AS e FROM chunk_vectors ORDER BY embedding_model, content_hash`,
      )
    ).rows;
    expect(vectors).toEqual([
      { content_hash: "h-new", embedding_model: "m", e: vec(0.3, 3) },
      { content_hash: "h-old", embedding_model: "m", e: vec(0.2, 3) },
      // Shared by v1 and v2: the serving version's copy, so search answers as before.
      { content_hash: "h-same", embedding_model: "m", e: vec(0.9, 3) },
      { content_hash: "h-new", embedding_model: "other", e: vec(0.5, 3) },
      { content_hash: "h-same", embedding_model: "other", e: vec(0.4, 3) },
    ]);
    const records = (
      await db.t.pool.query(
        `SELECT iv.version_number, c.ordinal, v.content_hash, v.embedding_model FROM chunks c JOIN index_versions iv ON iv.id = c.index_version_id
           JOIN chunk_vectors v ON v.id = c.vector_id ORDER BY 1, 2`,
      )
    ).rows;
    expect(records).toEqual([
      { version_number: 1, ordinal: 0, content_hash: "h-same", embedding_model: "m" },
      { version_number: 1, ordinal: 1, content_hash: "h-old", embedding_model: "m" },
      { version_number: 2, ordinal: 0, content_hash: "h-same", embedding_model: "m" },
      { version_number: 2, ordinal: 1, content_hash: "h-new", embedding_model: "m" },
      { version_number: 3, ordinal: 0, content_hash: "h-same", embedding_model: "other" },
      { version_number: 3, ordinal: 1, content_hash: "h-new", embedding_model: "other" },
    ]);
    // Every HNSW index left chunks; since the index spaces migration (20261202000000) there is one
    // per space: the two models found here and the built-in local one.
    const indexes = (
      await db.t.pool.query(
        `SELECT i.tablename, s.model, s.dimensions FROM pg_indexes i
           JOIN embedding_spaces s ON i.indexname = 'chunk_vectors_space_' || s.id || '_hnsw'
          WHERE i.indexname LIKE '%hnsw' ORDER BY s.model`,
      )
    ).rows;
    expect(indexes).toEqual([
      { tablename: "chunk_vectors", model: "indexwright-local-hash-v1", dimensions: 384 },
      { tablename: "chunk_vectors", model: "m", dimensions: 3 },
      { tablename: "chunk_vectors", model: "other", dimensions: 3 },
    ]);
    expect(
      (await db.t.pool.query(`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname LIKE '%hnsw'`)).rows[0].n,
    ).toBe(3);
    const cols = (
      await db.t.pool.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'chunks' AND column_name IN ('embedding', 'vector_id', 'tsv', 'search_language')`,
      )
    ).rows;
    expect(cols).toEqual([{ column_name: "vector_id" }]);
    // The full-text terms moved with the content (20261130151000): its text, language and tsv.
    const terms = (
      await db.t.pool.query(`SELECT DISTINCT text, search_language::text AS l, tsv::text AS tsv FROM chunk_vectors`)
    ).rows;
    expect(terms).toEqual([{ text: "refunds", l: "english", tsv: "'refund':1" }]);
    // A record cannot point at a vector that does not exist, and a referenced vector cannot go.
    await expect(db.t.pool.query(`UPDATE chunks SET vector_id = -1 WHERE ordinal = 0`)).rejects.toThrow(
      /chunks_vector_id_fkey/,
    );
    await expect(db.t.pool.query(`DELETE FROM chunk_vectors WHERE content_hash = 'h-same'`)).rejects.toThrow(
      /chunks_vector_id_fkey/,
    );
  });
});
