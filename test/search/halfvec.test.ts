import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createTestDb, type TestDb, extraPool } from "../helpers/db";
import { longDocument, testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { searchWithPlan, tenantSearchSpace } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import { indexedVector, vectorCast } from "../../lib/db/vector-index";
import { spaceFor } from "../helpers/spaces";
import { spaceIndexName, spaceIndexSql } from "../../lib/spaces/indexes";
import { toVectorLiteral } from "../../lib/embedding/types";

// 3,072 dimensions (OpenAI's text-embedding-3-large) is past pgvector's 2,000-dimension HNSW limit
// for `vector`: the index and the search both use `halfvec`, which goes to 4,000.
const DIMS = 3072;
const TENANT = "wide";
let t: TestDb;
let spaceId = 0;
const embedder = new LocalEmbedder(DIMS);

beforeAll(async () => {
  t = await createTestDb();
  spaceId = await spaceFor(t.pool, embedder, { tenants: [TENANT] });
  const w = testWorker(t, "halfvec", {}, 2, embedder);
  await w.start();
  const docs = [
    { key: "handbook", content: longDocument(60, "handbook") },
    {
      key: "refunds",
      content:
        "# Refunds\n\nRefunds are paid back to the original card within five working days of the return arriving.",
    },
    {
      key: "shipping",
      content: "# Shipping\n\nParcels leave the warehouse every weekday at four in the afternoon, tracked by courier.",
    },
  ];
  const tasks: string[] = [];
  for (const d of docs) {
    const r = await publish(t.pool, {
      tenant: TENANT,
      key: d.key,
      title: d.key,
      contentType: "text/markdown",
      content: Buffer.from(d.content),
      acl: [],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 8,
    });
    tasks.push(r.taskId!);
  }
  await waitFor(
    async () =>
      (
        await t.pool.query(
          `SELECT count(*)::int AS n FROM index_tasks WHERE status = 'SUCCEEDED' AND task_id = ANY($1::bigint[])`,
          [tasks],
        )
      ).rows[0].n === tasks.length,
    60_000,
  );
  await w.stop(2000);
});
afterAll(async () => t?.close());

/** The SQL a search sends, captured from a pool of its own. */
async function capturedSearch(exactMaxChunks: number, query: string) {
  const pool = extraPool(t.url, { max: 1 });
  // The test database is dropped (its backends terminated) right after; a connection still closing
  // then reports that, which is expected and must not surface as an uncaught error.
  pool.on("error", () => undefined);
  const sent: { text: string; values: unknown[] }[] = [];
  // Every connection the pool opens records what is sent on it (pool.query's included).
  pool.on("connect", (c) => {
    c.on("error", () => undefined);
    // Search statements go out as text + values or, on real PostgreSQL, as a named statement
    // config; pool.query adds a callback. Everything is passed through as it came.
    const q = c.query.bind(c) as (...args: unknown[]) => Promise<pg.QueryResult>;
    (c as unknown as { query: typeof q }).query = (...args: unknown[]) => {
      const [query, values] = args as [string | { text: string; values?: unknown[] }, unknown];
      if (typeof query === "string") sent.push({ text: query, values: Array.isArray(values) ? values : [] });
      else sent.push({ text: query.text, values: query.values ?? [] });
      return q(...args);
    };
  });
  try {
    const result = await searchWithPlan(pool, await tenantSearchSpace(pool, embedder, TENANT), {
      tenant: TENANT,
      query,
      topK: 3,
      principals: [],
      exactMaxChunks,
    });
    return { result, candidateSql: sent.find((s) => s.text.includes("WITH candidates"))! };
  } finally {
    await pool.end();
  }
}

describe("embeddings above 2,000 dimensions", () => {
  it("are indexed as halfvec with halfvec_cosine_ops, and refused above 4,000", async () => {
    expect(indexedVector(2000).type).toBe("vector");
    expect(indexedVector(2001).type).toBe("halfvec");
    expect(vectorCast(DIMS)).toBe("::halfvec(3072)");
    const { rows } = await t.pool.query(`SELECT indexdef FROM pg_indexes WHERE indexname = $1`, [
      spaceIndexName(spaceId),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].indexdef).toMatch(
      new RegExp(
        `USING hnsw \\(\\(\\(embedding\\)::halfvec\\(3072\\)\\) halfvec_cosine_ops\\) WHERE \\(space_id = ${spaceId}\\)`,
      ),
    );
    expect(() => spaceIndexSql({ id: spaceId, dimensions: 4001 }, false)).toThrow(/at most 4000 dimensions/);
    const chunks = (
      await t.pool.query(
        `SELECT count(*)::int AS n, min(dims) AS lo, max(dims) AS hi FROM chunks WHERE tenant_id = $1`,
        [TENANT],
      )
    ).rows[0];
    expect(chunks).toMatchObject({ lo: DIMS, hi: DIMS });
    expect(chunks.n).toBeGreaterThan(60);
  });

  it("search casts the way the index is built, so the planner walks the HNSW index", async () => {
    const { result, candidateSql } = await capturedSearch(0, "refunds paid back to the original card");
    expect(result.strategy).toBe("hnsw");
    expect(candidateSql.text).toContain("v.embedding::halfvec(3072) <=> $2::halfvec(3072)");
    const client = await t.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL hnsw.iterative_scan = relaxed_order");
      // A table this small is cheaper to scan and sort; take those away to ask only whether the
      // index matches the query's expression at all.
      await client.query("SET LOCAL enable_seqscan = off");
      await client.query("SET LOCAL enable_sort = off");
      const plan = (await client.query(`EXPLAIN ${candidateSql.text}`, candidateSql.values)).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
      expect(plan).toMatch(new RegExp(`Index Scan using ${spaceIndexName(spaceId)} on chunk_vectors v`));
      // Control: the full-precision cast the search used before has no index to use.
      const asVector = candidateSql.text.replaceAll("::halfvec(3072)", "::vector(3072)");
      const controlPlan = (await client.query(`EXPLAIN ${asVector}`, candidateSql.values)).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
      expect(controlPlan).not.toMatch(/hnsw/);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });

  it("finds the same documents as an exact full-precision ranking, with scores within halfvec rounding", async () => {
    for (const query of [
      "refunds paid back to the original card",
      "parcels leave the warehouse every weekday",
      "rule number 17 about topic",
    ]) {
      const hnsw = (await capturedSearch(0, query)).result;
      const exact = (await capturedSearch(1_000_000, query)).result;
      expect(hnsw.strategy).toBe("hnsw");
      expect(exact.strategy).toBe("exact");
      const [vec] = await embedder.embed([query], AbortSignal.timeout(5000));
      const truth = (
        await t.pool.query<{ chunk_id: string; key: string; score: number }>(
          `SELECT c.chunk_id, d.key, 1 - (v.embedding::vector(${DIMS}) <=> $2::vector(${DIMS})) AS score
             FROM chunks c JOIN chunk_vectors v ON v.id = c.vector_id
             JOIN search_pointers sp ON sp.index_version_id = c.index_version_id JOIN documents d ON d.id = c.document_id
            WHERE c.tenant_id = $1 AND c.dims = ${DIMS}
            ORDER BY v.embedding::vector(${DIMS}) <=> $2::vector(${DIMS}) LIMIT 3`,
          [TENANT, toVectorLiteral(vec)],
        )
      ).rows;
      expect(hnsw.hits.map((h) => h.chunkId)).toEqual(truth.map((r) => r.chunk_id));
      expect(exact.hits.map((h) => h.chunkId)).toEqual(truth.map((r) => r.chunk_id));
      for (const [i, h] of hnsw.hits.entries()) expect(Math.abs(h.score - Number(truth[i].score))).toBeLessThan(2e-3);
    }
    const top = (await capturedSearch(0, "refunds paid back to the original card")).result.hits[0];
    expect(top.documentKey).toBe("refunds");
  });
});
