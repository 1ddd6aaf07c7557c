import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spaceFor } from "../helpers/spaces";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { requestDelete } from "../../lib/documents/repository";
import { fuse, search, tenantSearchSpace, textSearch, type SearchHit } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";

// Full-text and hybrid search through the real write path: chunks written by a worker get their
// tsvector from the tenant's text search configuration, and text hits obey the same visibility
// rules as vector hits.
const T = "hy";
const e = new LocalEmbedder(384);
let t: TestDb;

async function publishAll(tenant: string, docs: { key: string; content: string; acl?: string[] }[]) {
  const tasks: string[] = [];
  for (const d of docs) {
    const r = await publish(t.pool, {
      tenant,
      key: d.key,
      title: d.key,
      contentType: "text/markdown",
      content: Buffer.from(d.content),
      acl: d.acl ?? [],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 8,
    });
    if (r.taskId) tasks.push(r.taskId);
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
}

const keys = (hits: SearchHit[]) => hits.map((h) => h.documentKey);

beforeAll(async () => {
  t = await createTestDb();
  await t.pool.query(`INSERT INTO tenants (id, name, search_language) VALUES ('cjk', 'cjk', 'simple')`);
  const w = testWorker(t, "hy", {}, 2);
  await w.start();
  // The manual names the part once in a long section; the catalogue pages are short and name
  // near-identical codes, so by embedding they are all closer to a bare code than the manual is.
  const manual = [
    "# Pump manual",
    "## Maintenance",
    "Before servicing the circulation pump, isolate the supply, drain the housing and let the unit cool for at least thirty minutes. " +
      "Replace the impeller seal kit XQ-7731-B every two years or after any dry running, and check the bearing for play while the cover is off. " +
      "Refill slowly, bleed the air from the top vent and watch the pressure gauge settle before restoring power to the controller.",
  ].join("\n\n");
  const catalogue = [
    "XQ-7731-C",
    "XQ-7731-D",
    "XQ-7713-B",
    "XQ-7731-E",
    "XQ-7371-B",
    "XQ-7731-F",
    "XQ-1773-B",
    "XQ-7731-G",
  ].map((code, i) => ({
    key: `catalogue-${i}`,
    content: `# Part ${code}\n\nPart ${code} seal kit.`,
  }));
  await publishAll(T, [
    { key: "pump-manual", content: manual },
    ...catalogue,
    { key: "vault", content: "# Vault\n\nThe vault keypad is model VK-4410-S.", acl: ["group:security"] },
    { key: "old-spec", content: "# Spec\n\nThe old spec names valve RT-2020-A." },
    { key: "gone", content: "# Gone\n\nThe removed page names sensor GN-5150-X." },
  ]);
  // A second version without the valve: version 1 stays as a retained rollback version.
  await publishAll(T, [{ key: "old-spec", content: "# Spec\n\nThe new spec names no valve at all." }]);
  // Hidden from search the moment it is marked deleted, whatever its DELETE task has done yet.
  await requestDelete(t.pool, T, "gone", "t", 8);
  await publishAll("cjk", [
    { key: "runner", content: "# Runner\n\nThe runners were running quickly through the park." },
  ]);
  await w.stop(2000);
}, 120_000);
afterAll(async () => t?.close());

describe("text and hybrid search", () => {
  it("an exact product code: text and hybrid search find the manual, vector search does not", async () => {
    const q = { tenant: T, query: "XQ-7731-B", topK: 3, principals: [] };
    const vector = await search(t.pool, e, { ...q, mode: "vector" });
    const text = await search(t.pool, e, { ...q, mode: "text" });
    const hybrid = await search(t.pool, e, { ...q, mode: "hybrid" });
    expect(vector).toHaveLength(3);
    expect(keys(vector)).not.toContain("pump-manual");
    expect(keys(text)).toEqual(["pump-manual"]);
    expect(text[0].text).toContain("XQ-7731-B");
    expect(keys(hybrid)).toContain("pump-manual");
    expect(hybrid).toHaveLength(3);
  });

  it("text hits follow the same visibility rules: ACL, active version, deleted documents", async () => {
    const q = { tenant: T, topK: 5, mode: "text" as const };
    expect(await search(t.pool, e, { ...q, query: "VK-4410-S", principals: [] })).toEqual([]);
    expect(keys(await search(t.pool, e, { ...q, query: "VK-4410-S", principals: ["group:security"] }))).toEqual([
      "vault",
    ]);
    // Version 1 of old-spec (retained for rollback) names the valve; search serves version 2.
    expect(await search(t.pool, e, { ...q, query: "RT-2020-A", principals: [] })).toEqual([]);
    expect(
      (await search(t.pool, e, { ...q, query: "new spec valve", principals: [] })).map((h) => [
        h.documentKey,
        h.versionNumber,
      ]),
    ).toEqual([["old-spec", 2]]);
    expect(await search(t.pool, e, { ...q, query: "GN-5150-X", principals: [] })).toEqual([]);
    // Another tenant's chunks never answer.
    expect(await search(t.pool, e, { ...q, tenant: "cjk", query: "XQ-7731-B", principals: [] })).toEqual([]);
  });

  it("text hits come from the versions the tenant's active space serves, whoever embeds the query", async () => {
    const q = { tenant: T, query: "XQ-7731-B", topK: 3, principals: [], mode: "text" as const };
    const mine = keys(await search(t.pool, e, q));
    expect(mine.length).toBeGreaterThan(0);
    // The caller's embedder does not choose the space: the tenant's does.
    expect(keys(await search(t.pool, new LocalEmbedder(384, "another-model"), q))).toEqual(mine);
    // Read against a space the tenant does not search, nothing is served.
    const otherId = await spaceFor(t.pool, { model: "another-model", dimensions: 384 });
    const { space } = await tenantSearchSpace(t.pool, e, T);
    expect(await textSearch(t.pool, { ...space, id: otherId }, q)).toEqual([]);
  });

  it("each tenant's chunks are indexed with its text search configuration", async () => {
    const langs = (
      await t.pool.query(`SELECT DISTINCT tenant_id, search_language::text AS l FROM chunk_vectors ORDER BY 1`)
    ).rows;
    expect(langs).toEqual([
      { tenant_id: "cjk", l: "simple" },
      { tenant_id: T, l: "english" },
    ]);
    // english stems "running" to "run"; simple keeps words as written.
    expect(
      keys(await search(t.pool, e, { tenant: "cjk", query: "run", topK: 3, principals: [], mode: "text" })),
    ).toEqual([]);
    expect(
      keys(await search(t.pool, e, { tenant: "cjk", query: "running", topK: 3, principals: [], mode: "text" })),
    ).toEqual(["runner"]);
    expect(
      keys(await search(t.pool, e, { tenant: T, query: "servicing pumps", topK: 3, principals: [], mode: "text" })),
    ).toEqual(["pump-manual"]);
  });

  it("reciprocal rank fusion: a hit in both lists beats hits in one; ties keep the vector order", () => {
    const hit = (k: string): SearchHit => ({
      documentKey: k,
      versionNumber: 1,
      chunkId: `${k}-1`,
      sectionPath: "",
      text: k,
      score: 0,
      level: 2,
    });
    const fused = fuse(
      [
        [hit("a"), hit("b"), hit("c")],
        [hit("x"), hit("c")],
      ],
      4,
    );
    expect(keys(fused)).toEqual(["c", "a", "x", "b"]);
    expect(fused[0].score).toBeCloseTo(1 / 63 + 1 / 62, 12);
    expect(fused[1].score).toBeCloseTo(1 / 61, 12);
  });
});
