import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { spaceFor } from "../helpers/spaces";
import { createTestDb, onRealPostgres, type TestDb, extraPool } from "../helpers/db";
import { searchWithPlan, tenantSearchSpace } from "../../lib/search/search";
import { vectorSearchSql } from "../../lib/search/sql";
import { LocalEmbedder } from "../../lib/embedding";
import { embedLocal } from "../../lib/pipeline/local-embedder";
import { toVectorLiteral } from "../../lib/embedding/types";

// Chunks the caller may not see (a retained rollback version, a version whose ACL names someone
// else, a deleted document, another embedding model) are put nearer the query than every visible
// chunk, more of them than a fixed candidate pool would hold: none may take a result slot, on the
// HNSW path as on the exact one.
const TENANT = "vis";
const QUERY = "quarterly revenue forecast for the northern region";
const embedder = new LocalEmbedder(384);
let t: TestDb;
let q: number[];

let otherSpace = 0;

/** A document with one version per entry; the last listed `active` one gets the search pointer. */
async function seedDocument(
  key: string,
  versions: { acl: string[]; status: "ACTIVE" | "RETIRED"; chunks: number; near: boolean; model?: string }[],
  deleted = false,
) {
  const docId = randomUUID();
  await t.pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version, deleted_at) VALUES ($1, $2, $3, $3, $4, $5)`,
    [docId, TENANT, key, versions.length, deleted ? new Date() : null],
  );
  for (const [i, v] of versions.entries()) {
    const n = i + 1;
    const ivId = randomUUID();
    await t.pool.query(
      `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, acl, published_by)
       VALUES ($1, $2, $3, $4, 'd', 'text/plain', '\\x00', 1, 'x', $5, 't')`,
      [randomUUID(), TENANT, docId, n, v.acl],
    );
    // Another model is another index space (docs/decisions/039-index-spaces.md).
    const space = v.model && v.model !== embedder.model ? otherSpace : 1;
    await t.pool.query(
      `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count, space_id)
       VALUES ($1, $2, $3, $4, $5, 'c', $6, 384, $7, $7, $8)`,
      [ivId, TENANT, docId, n, v.status, v.model ?? embedder.model, v.chunks, space],
    );
    const texts = Array.from({ length: v.chunks }, (_, o) => (v.near ? `${QUERY} ${o}` : `revenue notes ${o} ${key}`));
    await t.pool.query(
      `INSERT INTO chunk_vectors (tenant_id, document_id, content_hash, embedding_model, dims, chunker_version, embedding, text, space_id)
       SELECT DISTINCT ON (md5(t)) $1, $2::uuid, md5(t), $3, 384, 'c', e::vector, t, $6 FROM unnest($4::text[], $5::text[]) AS u(t, e)
       ON CONFLICT (document_id, content_hash, space_id) DO NOTHING`,
      [
        TENANT,
        docId,
        v.model ?? embedder.model,
        texts,
        texts.map((x) => toVectorLiteral(embedLocal([x], 384)[0])),
        space,
      ],
    );
    await t.pool.query(
      `INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, text, content_hash, dims, vector_id)
       SELECT $1, o, $2 || '-v' || $3 || '-' || o, $4, $5, t, md5(t), 384, cv.id
         FROM unnest($6::text[]) WITH ORDINALITY AS u(t, o)
         JOIN chunk_vectors cv ON cv.document_id = $5 AND cv.content_hash = md5(t) AND cv.embedding_model = $7 AND cv.dims = 384 AND cv.chunker_version = 'c'`,
      [ivId, key, n, TENANT, docId, texts, v.model ?? embedder.model],
    );
    if (v.status === "ACTIVE") {
      await t.pool.query(
        `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, $2, $3, $4)
         ON CONFLICT (document_id) DO UPDATE SET index_version_id = excluded.index_version_id, version_number = excluded.version_number`,
        [docId, TENANT, ivId, n],
      );
    }
  }
}

beforeAll(async () => {
  t = await createTestDb();
  [q] = embedLocal([QUERY], 384);
  await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1)`, [TENANT]);
  otherSpace = await spaceFor(t.pool, { model: "other-model", dimensions: 384 });
  // 2,400 invisible chunks that repeat the query's words, 12 visible ones that share only some.
  await seedDocument("rolled-back", [
    { acl: [], status: "RETIRED", chunks: 800, near: true },
    { acl: [], status: "ACTIVE", chunks: 4, near: false },
  ]);
  await seedDocument("finance-only", [{ acl: ["group:finance"], status: "ACTIVE", chunks: 800, near: true }]);
  await seedDocument("removed", [{ acl: [], status: "ACTIVE", chunks: 400, near: true }], true);
  await seedDocument("other-model", [{ acl: [], status: "ACTIVE", chunks: 400, near: true, model: "another-model" }]);
  await seedDocument("public", [{ acl: [], status: "ACTIVE", chunks: 4, near: false }]);
  await seedDocument("staff", [{ acl: ["group:staff"], status: "ACTIVE", chunks: 4, near: false }]);
  await t.pool.query(`ANALYZE`);
}, 120_000);
afterAll(async () => t?.close());

const VISIBLE_TO_STAFF = ["rolled-back", "public", "staff"];

describe("chunks the caller may not see take no result slots", () => {
  it.each([
    ["hnsw", 0],
    ["exact", 1_000_000],
  ])("%s: ten visible hits past 2,400 nearer invisible chunks", async (strategy, exactMaxChunks) => {
    // ef_search 10: the walk must go on well past its first candidate list to find them.
    const r = await searchWithPlan(t.pool, await tenantSearchSpace(t.pool, embedder, TENANT), {
      tenant: TENANT,
      query: QUERY,
      topK: 10,
      principals: ["group:staff"],
      exactMaxChunks,
      efSearch: 10,
    });
    expect(r.strategy).toBe(strategy);
    expect(r.hits).toHaveLength(10);
    expect(new Set(r.hits.map((h) => h.documentKey))).toEqual(new Set(VISIBLE_TO_STAFF));
    // The active version 2 of the rolled-back document, never its retained version 1.
    expect(
      r.hits
        .filter((h) => h.documentKey === "rolled-back")
        .every((h) => h.versionNumber === 2 && h.chunkId.includes("-v2-")),
    ).toBe(true);
    // Nearest first.
    const scores = r.hits.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("hits are the exact ranking of the visible chunks", async () => {
    const hnsw = await searchWithPlan(t.pool, await tenantSearchSpace(t.pool, embedder, TENANT), {
      tenant: TENANT,
      query: QUERY,
      topK: 6,
      principals: ["group:staff"],
      exactMaxChunks: 0,
    });
    const exact = await searchWithPlan(t.pool, await tenantSearchSpace(t.pool, embedder, TENANT), {
      tenant: TENANT,
      query: QUERY,
      topK: 6,
      principals: ["group:staff"],
      exactMaxChunks: 1_000_000,
    });
    expect(exact.strategy).toBe("exact");
    expect(hnsw.strategy).toBe("hnsw");
    expect(hnsw.hits.map((h) => h.chunkId)).toEqual(exact.hits.map((h) => h.chunkId));
  });

  it("without the group, the staff document is not answered and the others fill the slots", async () => {
    const r = await searchWithPlan(t.pool, await tenantSearchSpace(t.pool, embedder, TENANT), {
      tenant: TENANT,
      query: QUERY,
      topK: 10,
      principals: ["user:someone@example.com"],
      exactMaxChunks: 0,
    });
    expect(r.hits).toHaveLength(8);
    expect(new Set(r.hits.map((h) => h.documentKey))).toEqual(new Set(["rolled-back", "public"]));
    // Fewer visible chunks than asked for: the HNSW walk ran out, the exact ranking answered.
    expect(r.strategy).toBe("hnsw+exact");
  });

  it("a walk cut short by max_scan_tuples falls back to the exact ranking", async () => {
    const r = await searchWithPlan(t.pool, await tenantSearchSpace(t.pool, embedder, TENANT), {
      tenant: TENANT,
      query: QUERY,
      topK: 5,
      principals: ["group:staff"],
      exactMaxChunks: 0,
      efSearch: 10,
      maxScanTuples: 50,
    });
    expect(r.strategy).toBe("hnsw+exact");
    expect(r.hits).toHaveLength(5);
    expect(r.hits.every((h) => VISIBLE_TO_STAFF.includes(h.documentKey))).toBe(true);
  });

  it("the planner walks the HNSW index with the visibility test inside the scan", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query("SET LOCAL hnsw.iterative_scan = relaxed_order");
      // A table this small is cheaper to scan and sort; take that away to see the plan's shape.
      await c.query("SET LOCAL enable_seqscan = off");
      await c.query("SET LOCAL enable_bitmapscan = off");
      await c.query("SET LOCAL enable_sort = off");
      const plan = (
        await c.query(`EXPLAIN (COSTS OFF) ${vectorSearchSql({ id: 1, dims: 384 }, false, 10)}`, [
          TENANT,
          toVectorLiteral(q),
          null,
          ["group:staff"],
        ])
      ).rows.map((r) => String(r["QUERY PLAN"]));
      await c.query("ROLLBACK");
      const scan = plan.findIndex((l) => /Index Scan using chunk_vectors_space_1_hnsw on chunk_vectors v/.test(l));
      expect(scan, plan.join("\n")).toBeGreaterThan(0);
      expect(plan[scan - 1]).toMatch(/Limit/);
      expect(plan.slice(scan + 1).find((l) => l.trim().startsWith("Filter:"))).toMatch(/SubPlan/);
    } finally {
      c.release();
    }
  });
});

// On an external PostgreSQL a search is one named statement on a connection whose session already
// holds the HNSW settings; on the embedded database (one session shared by every connection) the
// settings stay inside the search's own transaction and nothing is prepared.
describe("search statements and the session they run in", () => {
  async function onOneConnection<T>(fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const pool = extraPool(t.url, { max: 1 });
    pool.on("error", () => undefined);
    try {
      return await fn(pool);
    } finally {
      await pool.end();
    }
  }
  const setting = async (pool: pg.Pool, name: string) =>
    (await pool.query(`SELECT current_setting($1, true) AS v`, [name])).rows[0].v as string | null;
  const search = async (pool: pg.Pool, opts: { efSearch?: number } = {}) =>
    searchWithPlan(pool, await tenantSearchSpace(pool, embedder, TENANT), {
      tenant: TENANT,
      query: QUERY,
      topK: 6,
      principals: ["group:staff"],
      exactMaxChunks: 0,
      ...opts,
    });

  it("keeps each search's own settings, whatever the connection ran before", async () => {
    await onOneConnection(async (pool) => {
      const exact = await searchWithPlan(pool, await tenantSearchSpace(pool, embedder, TENANT), {
        tenant: TENANT,
        query: QUERY,
        topK: 6,
        principals: ["group:staff"],
        exactMaxChunks: 1_000_000,
      });
      const first = await search(pool, { efSearch: 10 });
      if (onRealPostgres) expect(await setting(pool, "hnsw.ef_search")).toBe("10");
      const second = await search(pool);
      if (onRealPostgres) {
        expect(await setting(pool, "hnsw.ef_search")).toBe("100");
        expect(await setting(pool, "hnsw.iterative_scan")).toBe("relaxed_order");
        expect(await setting(pool, "hnsw.max_scan_tuples")).toBe("20000");
        // No JIT compile for a search: its planned cost crossed jit_above_cost on small tenants.
        expect(await setting(pool, "jit")).toBe("off");
      } else {
        // Nothing outlives the search's transaction in the shared session.
        expect(await setting(pool, "hnsw.iterative_scan")).not.toBe("relaxed_order");
      }
      for (const r of [first, second]) expect(r.hits.map((h) => h.chunkId)).toEqual(exact.hits.map((h) => h.chunkId));
    });
  });

  it("is prepared once per connection, and its generic plan walks the HNSW index under the limit", async () => {
    await onOneConnection(async (pool) => {
      // A table this small is cheaper to scan and sort whatever the statement; take that away so
      // the plans compared are the ones a large tenant gets.
      await pool.query("SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off");
      for (let i = 0; i < 8; i++) expect((await search(pool)).strategy).toBe("hnsw");
      const { rows } = await pool.query<{ name: string; calls: number }>(
        `SELECT name, (generic_plans + custom_plans)::int AS calls FROM pg_prepared_statements WHERE statement LIKE '%WITH candidates%'`,
      );
      if (!onRealPostgres) return expect(rows).toEqual([]);
      expect(rows).toEqual([{ name: expect.stringMatching(/^iw_/), calls: 8 }]);
      // After five calls the server keeps the generic plan when it costs about what the custom
      // ones did. It may only when that plan is the walk under the limit: with the limit bound
      // as a parameter the planner assumed a tenth of the table was wanted and never switched.
      await pool.query("SET plan_cache_mode = force_generic_plan");
      const lit = `'${TENANT}', '${toVectorLiteral(q)}', NULL, ARRAY['group:staff']`;
      const plan = (await pool.query(`EXPLAIN EXECUTE ${rows[0].name}(${lit})`)).rows.map((r) =>
        String(r["QUERY PLAN"]),
      );
      const scan = plan.findIndex((l) => /Index Scan using chunk_vectors_space_1_hnsw on chunk_vectors v/.test(l));
      expect(scan, plan.join("\n")).toBeGreaterThan(0);
      expect(plan[scan - 1]).toMatch(/Limit .*rows=(\d+) /);
      expect(Number(/rows=(\d+)/.exec(plan[scan - 1])![1])).toBeLessThanOrEqual(10);
    });
  });
});
