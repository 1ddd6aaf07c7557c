import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { migrate } from "../../lib/db/migrate";
import { databaseBefore } from "../helpers/migrations";

// The index spaces migration on a database that already holds builds of two models: one space per
// (model, dimensions, chunker) found, every index version and vector assigned to its space, each
// tenant active on the space most of its served versions are in, one HNSW index per space, and
// the built-in local space the default of new tenants.
const MOVE = "20261202000000_index_spaces";
const db = databaseBefore(MOVE);

const vec = (dims: number) => `[${Array.from({ length: dims }, (_, i) => (i === 0 ? 1 : 0.5)).join(",")}]`;

async function servedDoc(tenant: string, key: string, model: string, dims: number) {
  const doc = randomUUID();
  const iv = randomUUID();
  await db.t.pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, $3, $3, 1)`,
    [doc, tenant, key],
  );
  await db.t.pool.query(
    `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
     VALUES ($1, $2, $3, 1, 'ACTIVE', 'md-heading-v2', $4, $5, 1, 1)`,
    [iv, tenant, doc, model, dims],
  );
  const v = await db.t.pool.query<{ id: string }>(
    `INSERT INTO chunk_vectors (tenant_id, document_id, content_hash, embedding_model, dims, chunker_version, embedding, text)
     VALUES ($1, $2, 'h', $3, $4, 'md-heading-v2', $5, 'text') RETURNING id`,
    [tenant, doc, model, dims, vec(dims)],
  );
  await db.t.pool.query(
    `INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, text, content_hash, dims, vector_id)
     VALUES ($1, 0, 'c', $2, $3, 'text', 'h', $4, $5)`,
    [iv, tenant, doc, dims, v.rows[0].id],
  );
  await db.t.pool.query(
    `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, $2, $3, 1)`,
    [doc, tenant, iv],
  );
}

describe("index spaces migration", () => {
  it("makes a space of every build found, assigns every row, and keeps each tenant on what it served", async () => {
    await migrate(db.t.url, { dir: db.before });
    await db.t.pool.query(
      `INSERT INTO tenants (id, name) VALUES ('acme', 'Acme'), ('globex', 'Globex'), ('empty', 'Empty')`,
    );
    await servedDoc("acme", "a1", "indexwright-local-hash-v1", 384);
    await servedDoc("globex", "g1", "text-embedding-3-small", 8);
    await servedDoc("globex", "g2", "text-embedding-3-small", 8);
    await servedDoc("globex", "g3", "indexwright-local-hash-v1", 384);

    expect((await migrate(db.t.url)).applied).toContain(MOVE);

    const spaces = (
      await db.t.pool.query(
        `SELECT name, provider, model, dimensions, api_key_env, is_default FROM embedding_spaces ORDER BY id`,
      )
    ).rows;
    expect(spaces).toHaveLength(2);
    expect(spaces).toContainEqual({
      name: "local",
      provider: "local",
      model: "indexwright-local-hash-v1",
      dimensions: 384,
      api_key_env: null,
      is_default: true,
    });
    expect(spaces).toContainEqual(
      expect.objectContaining({
        provider: "openai",
        model: "text-embedding-3-small",
        dimensions: 8,
        api_key_env: "OPENAI_API_KEY",
        is_default: false,
      }),
    );
    // Every row in the space of its own model and dimensions.
    const mismatched = await db.t.pool.query(
      `SELECT (SELECT count(*)::int FROM index_versions iv JOIN embedding_spaces s ON s.id = iv.space_id
                WHERE s.model <> iv.embedding_model OR s.dimensions <> iv.embedding_dimensions) AS versions,
              (SELECT count(*)::int FROM chunk_vectors v JOIN embedding_spaces s ON s.id = v.space_id
                WHERE s.model <> v.embedding_model OR s.dimensions <> v.dims) AS vectors`,
    );
    expect(mismatched.rows[0]).toEqual({ versions: 0, vectors: 0 });
    const active = (
      await db.t.pool.query(
        `SELECT t.id, s.model FROM tenants t JOIN embedding_spaces s ON s.id = t.active_space_id ORDER BY t.id`,
      )
    ).rows;
    expect(active).toEqual([
      { id: "acme", model: "indexwright-local-hash-v1" },
      { id: "empty", model: "indexwright-local-hash-v1" },
      // Two of its three served documents are in the openai space.
      { id: "globex", model: "text-embedding-3-small" },
    ]);
    const indexes = (
      await db.t.pool.query(
        `SELECT s.dimensions, i.indexdef FROM embedding_spaces s JOIN pg_indexes i ON i.indexname = 'chunk_vectors_space_' || s.id || '_hnsw' ORDER BY s.dimensions`,
      )
    ).rows;
    expect(indexes.map((r) => r.dimensions)).toEqual([8, 384]);
    expect(
      (
        await db.t.pool.query(
          `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname LIKE 'chunk_vectors_embedding_%'`,
        )
      ).rows[0].n,
    ).toBe(0);
    // A tenant that first publishes after the migration starts on the default space.
    await db.t.pool.query(`INSERT INTO tenants (id, name) VALUES ('newco', 'Newco')`);
    const { rows } = await db.t.pool.query(
      `SELECT s.name FROM tenants t JOIN embedding_spaces s ON s.id = t.active_space_id WHERE t.id = 'newco'`,
    );
    expect(rows).toEqual([{ name: "local" }]);
  });
});
