import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { spaceFor } from "../helpers/spaces";
import { actOnMigration, getMigration, startMigration } from "../../lib/spaces/repository";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { search } from "../../lib/search/search";
import { collectGarbage } from "../../lib/pipeline/run";
import { LocalEmbedder } from "../../lib/embedding";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await resetContent(t.pool);
});

const doc =
  "# Atlas\n\nThe atlas room keeps maps of every coastline.\n\n## Loans\n\nMaps may be borrowed for two weeks.";
const status = async (id: string | null) =>
  (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [id])).rows[0].status;

// A model change is a migration (docs/index-spaces.md): the document is built in the new model's
// space aside, with nothing reused from the old one, and search moves only at the switch.
describe("a model change", () => {
  it("builds a new index version with the new model aside, switched only when complete; nothing is reused across models", async () => {
    const w1 = testWorker(t, "old-model", {}, 1, new LocalEmbedder(384));
    await w1.start();
    const p = await publish(t.pool, {
      tenant: "rx",
      key: "atlas",
      title: "Atlas",
      contentType: "text/markdown",
      content: Buffer.from(doc),
      acl: [],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 8,
    });
    await waitFor(async () => (await status(p.taskId)) === "SUCCEEDED");
    await w1.stop(2000);

    class NewModel extends LocalEmbedder {
      texts = 0;
      constructor() {
        super(384, "indexwright-local-hash-v2");
      }
      override async embed(texts: string[], s: AbortSignal) {
        this.texts += texts.length;
        return super.embed(texts, s);
      }
    }
    const next = new NewModel();
    await spaceFor(t.pool, next, { name: "local-v2" });
    const m = await startMigration(t.pool, { subject: "ops" }, "rx", { space: "local-v2" }, 8);
    const w2 = testWorker(t, "new-model", {}, 2, next);
    await w2.start();
    await waitFor(async () => {
      const v = await getMigration(t.pool, "rx", m.id);
      return v.documents.built === v.documents.total;
    });
    await w2.stop(2000);
    const served = async () =>
      (
        await t.pool.query(
          `SELECT iv.embedding_model FROM search_pointers sp JOIN index_versions iv ON iv.id = sp.index_version_id WHERE sp.tenant_id = 'rx'`,
        )
      ).rows.map((r) => r.embedding_model);
    expect(await served()).toEqual(["indexwright-local-hash-v1"]);
    await actOnMigration(t.pool, { subject: "ops" }, "rx", m.id, "switch", null);
    expect(await served()).toEqual(["indexwright-local-hash-v2"]);
    const ivs = await t.pool.query(
      `SELECT embedding_model, status, chunk_count, expected_chunk_count FROM index_versions ORDER BY created_at`,
    );
    // The old model's version stays ACTIVE as the previous space's, for a switch-back.
    expect(ivs.rows.map((x) => [x.embedding_model, x.status])).toEqual([
      ["indexwright-local-hash-v1", "ACTIVE"],
      ["indexwright-local-hash-v2", "ACTIVE"],
    ]);
    expect(next.texts).toBe(ivs.rows[1].chunk_count);
    const hits = await search(t.pool, next, {
      tenant: "rx",
      query: "maps may be borrowed for two weeks",
      topK: 3,
      principals: [],
    });
    expect(hits[0]).toMatchObject({ documentKey: "atlas", sectionPath: "Atlas > Loans" });
  });
});

describe("layered records", () => {
  it("abstract and overview are indexed as level-0 and level-1 records next to level-2 chunks", async () => {
    const w = testWorker(t, "levels", {}, 1);
    await w.start();
    const p = await publish(t.pool, {
      tenant: "lv",
      key: "atlas",
      title: "Atlas",
      contentType: "text/markdown",
      content: Buffer.from(doc),
      acl: [],
      abstract: "Map library rules in one line.",
      overview: "Covers the atlas room, what it holds, and the lending period for maps.",
      actor: "t",
      maxAttempts: 8,
    });
    await waitFor(async () => (await status(p.taskId)) === "SUCCEEDED");
    await w.stop(2000);
    const e = new LocalEmbedder(384);
    const l0 = await search(t.pool, e, { tenant: "lv", query: "map library rules", topK: 5, principals: [], level: 0 });
    expect(l0.map((h) => [h.level, h.sectionPath, h.text])).toEqual([
      [0, "abstract", "Map library rules in one line."],
    ]);
    const l1 = await search(t.pool, e, { tenant: "lv", query: "lending period", topK: 5, principals: [], level: 1 });
    expect(l1.map((h) => h.level)).toEqual([1]);
    const l2 = await search(t.pool, e, {
      tenant: "lv",
      query: "maps borrowed two weeks",
      topK: 5,
      principals: [],
      level: 2,
    });
    expect(l2.length).toBeGreaterThan(0);
    expect(l2.every((h) => h.level === 2)).toBe(true);
    const ids = await t.pool.query(`SELECT level, chunk_id FROM chunks WHERE level < 2 ORDER BY level`);
    expect(ids.rows).toHaveLength(2);
    expect(new Set(ids.rows.map((r) => r.chunk_id)).size).toBe(2);
  });
});

describe("retention", () => {
  it("garbage-collects retired index versions past retention, never one a pointer references", async () => {
    const w = testWorker(t, "gc", {}, 1);
    await w.start();
    for (const v of ["one", "two", "three"]) {
      const p = await publish(t.pool, {
        tenant: "gc",
        key: "atlas",
        title: "Atlas",
        contentType: "text/markdown",
        content: Buffer.from(`${doc}\n\nEdition ${v}.`),
        acl: [],
        abstract: null,
        overview: null,
        actor: "t",
        maxAttempts: 8,
      });
      await waitFor(async () => (await status(p.taskId)) === "SUCCEEDED");
    }
    await w.stop(2000);
    expect(await collectGarbage(t.pool, 1)).toBe(0); // within retention
    await t.pool.query(`UPDATE index_versions SET retired_at = now() - interval '2 hours' WHERE status = 'RETIRED'`);
    expect(await collectGarbage(t.pool, 1)).toBe(2);
    const left = await t.pool.query(`SELECT version_number, status FROM index_versions`);
    expect(left.rows).toEqual([{ version_number: 3, status: "ACTIVE" }]);
    expect((await t.pool.query(`SELECT count(DISTINCT index_version_id)::int AS n FROM chunks`)).rows[0].n).toBe(1);
  });
});
