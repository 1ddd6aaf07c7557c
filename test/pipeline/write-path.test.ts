import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type pg from "pg";
import { resetContent } from "../helpers/seed";
import { spaceFor } from "../helpers/spaces";
import { createTestDb, type TestDb } from "../helpers/db";
import { publish } from "../../lib/documents/publish";
import { rollback } from "../../lib/documents/repository";
import { claim } from "../../lib/queue/engine";
import { collectGarbage } from "../../lib/pipeline/run";
import { executeTask } from "../helpers/pipeline";
import { search } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";

// The index write path on real PostgreSQL: how a new version's records reach the table.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => resetContent(t.pool));

const TENANT = "wp";

class CountingEmbedder extends LocalEmbedder {
  texts: string[] = [];
  constructor() {
    super(384);
  }
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    this.texts.push(...texts);
    return super.embed(texts, signal);
  }
}

/** One section per entry, each its own chunk (the title alone makes none). */
const doc = (sections: string[]) => ["# Guide", ...sections.map((s, i) => `## Part ${i}\n\n${s}`)].join("\n\n");
const para = (name: string) =>
  `The ${name} rule says that requests about ${name} go to the ${name} desk and are answered within two working days by the duty team.`;

const pub = (sections: string[]) =>
  publish(t.pool, {
    tenant: TENANT,
    key: "guide",
    title: "guide",
    contentType: "text/markdown",
    content: Buffer.from(doc(sections)),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });

type Seen = { text: string; fields: string[] };

/**
 * The pool as the handler sees it, recording every statement and the columns it returned;
 * `before` runs ahead of each statement (and may act on the database through t.pool).
 */
function spying(pool: pg.Pool, seen: Seen[], before: (text: string) => Promise<void> = async () => undefined): pg.Pool {
  const wrap =
    (target: { query: (...a: unknown[]) => Promise<pg.QueryResult> }) =>
    async (...args: unknown[]) => {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text: string }).text;
      await before(text);
      const r = await target.query(...args);
      seen.push({ text, fields: (r.fields ?? []).map((f) => f.name) });
      return r;
    };
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "query") return wrap(target as never);
      if (prop === "connect")
        return async () => {
          const client = await target.connect();
          return new Proxy(client, {
            get(c, p) {
              if (p === "query") return wrap(c as never);
              const v = Reflect.get(c, p);
              return typeof v === "function" ? v.bind(c) : v;
            },
          });
        };
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function runNext(embedder: LocalEmbedder, pool: pg.Pool = t.pool) {
  const [lease] = await claim(t.pool, "w-write", 60, 1);
  expect(lease).toBeDefined();
  return executeTask(
    pool,
    embedder,
    lease,
    { signal: new AbortController().signal, progress: () => undefined },
    { batchSize: 16, batchMaxBytes: 1 << 20 },
  );
}

const versions = async () =>
  (
    await t.pool.query<{ version_number: number; status: string; chunk_count: number; expected_chunk_count: number }>(
      `SELECT version_number, status, chunk_count, expected_chunk_count FROM index_versions ORDER BY version_number, created_at`,
    )
  ).rows;

describe("unchanged records of a re-publish", () => {
  it("keep their stored vectors, copied inside the database: no vector reaches the worker and one INSERT writes every record", async () => {
    const names = ["refund", "travel", "badge", "payroll", "laptop", "holiday"];
    await pub(names.map(para));
    await runNext(new LocalEmbedder(384));

    await pub(names.map((n, i) => (i === 2 ? para("lost badge") : para(n))));
    const embedder = new CountingEmbedder();
    const seen: Seen[] = [];
    const stats = await runNext(embedder, spying(t.pool, seen));

    expect(embedder.texts).toHaveLength(1);
    expect(embedder.texts[0]).toContain("lost badge");
    expect(stats).toMatchObject({ chunksTotal: 6, chunksReused: 5 });
    // The worker read no vector back: before, every reused vector came to it as text and went back.
    expect(seen.filter((s) => s.fields.some((f) => f.includes("embedding")))).toEqual([]);
    expect(seen.filter((s) => /INSERT INTO chunks/.test(s.text))).toHaveLength(1);

    // The very same stored vector for every unchanged record; the edited one has its own, and it
    // is the only vector the re-publish stored.
    const pairs = await t.pool.query<{ same: boolean; content_hash: string }>(
      `SELECT c2.content_hash, c1.vector_id IS NOT NULL AND c2.vector_id = c1.vector_id AS same
         FROM chunks c2 JOIN index_versions v2 ON v2.id = c2.index_version_id AND v2.version_number = 2
         LEFT JOIN LATERAL (SELECT c.vector_id FROM chunks c JOIN index_versions v1 ON v1.id = c.index_version_id AND v1.version_number = 1
                             WHERE c.content_hash = c2.content_hash LIMIT 1) c1 ON true`,
    );
    expect(pairs.rows.filter((r) => r.same)).toHaveLength(5);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM chunk_vectors`)).rows[0].n).toBe(7);
    expect(await versions()).toEqual([
      { version_number: 1, status: "RETIRED", chunk_count: 6, expected_chunk_count: 6 },
      { version_number: 2, status: "ACTIVE", chunk_count: 6, expected_chunk_count: 6 },
    ]);
    const hits = await search(t.pool, embedder, {
      tenant: TENANT,
      query: "requests about lost badge go to the lost badge desk",
      topK: 3,
      principals: [],
    });
    expect(hits[0]).toMatchObject({ documentKey: "guide", versionNumber: 2 });
  });

  it("are copied only from the same index space: a version built in another space reuses nothing", async () => {
    const names = ["refund", "travel", "badge"];
    const other = new LocalEmbedder(384, "another-model");
    await spaceFor(t.pool, other, { tenants: [TENANT] });
    await pub(names.map(para));
    await runNext(other);
    // The tenant searches the local space from here on (what a migration's switch does).
    await t.pool.query(`UPDATE tenants SET active_space_id = indexwright_default_space() WHERE id = $1`, [TENANT]);
    await pub([...names.map(para), para("parking")]);
    const embedder = new CountingEmbedder();
    const stats = await runNext(embedder);
    expect(embedder.texts).toHaveLength(4);
    expect(stats).toMatchObject({ chunksTotal: 4, chunksReused: 0 });
  });

  it("whose only stored vector is collected between the reuse lookup and the switch: the task starts over, embeds it, and switches complete", async () => {
    // v1: A B C; v2: A B D (D is stored only in v2); a rollback pins v1 and retires v2; v3: A B D E.
    await pub([para("alpha"), para("beta"), para("gamma")]);
    await runNext(new LocalEmbedder(384));
    await pub([para("alpha"), para("beta"), para("delta")]);
    await runNext(new LocalEmbedder(384));
    await rollback(t.pool, TENANT, "guide", 1, "test", { subject: "test" }, 24);
    await pub([para("alpha"), para("beta"), para("delta"), para("epsilon")]);

    // Right before the switch transaction, v2 passes its retention and is collected.
    let collected = -1;
    const embedder = new CountingEmbedder();
    const pool = spying(t.pool, [], async (text) => {
      if (text === "BEGIN" && collected < 0) {
        await t.pool.query(
          `UPDATE index_versions SET retired_at = now() - interval '2 hours' WHERE version_number = 2`,
        );
        collected = await collectGarbage(t.pool, 1);
      }
    });
    const stats = await runNext(embedder, pool);

    expect(collected).toBe(1);
    // First round: epsilon only (delta counted as stored); second round: delta and epsilon.
    expect(embedder.texts.filter((s) => s.includes("epsilon"))).toHaveLength(2);
    expect(embedder.texts.filter((s) => s.includes("delta"))).toHaveLength(1);
    expect(stats).toMatchObject({ chunksTotal: 4, chunksReused: 2 });
    expect((await versions()).map((v) => [v.version_number, v.status, v.chunk_count])).toEqual([
      [1, "RETIRED", 3],
      [3, "ACTIVE", 4],
    ]);
    const events = await t.pool.query(
      `SELECT kind FROM task_events e JOIN index_tasks k ON k.task_id = e.task_id WHERE k.version_number = 3 ORDER BY e.id`,
    );
    expect(events.rows.map((r) => r.kind)).toEqual(["CREATED", "CLAIMED", "SUCCEEDED"]);
  });

  it("go through the same integrity check as embedded ones: a carried record altered on its way in fails the switch", async () => {
    const names = ["refund", "travel", "badge", "payroll"];
    await pub(names.map(para));
    await runNext(new LocalEmbedder(384));
    await pub(names.map((n, i) => (i === 3 ? para("pension") : para(n))));
    // Ordinal 1 ("refund") is unchanged, so its vector is carried; the table keeps a different text.
    await t.pool.query(`CREATE FUNCTION wp_corrupt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.ordinal = 1 THEN NEW.text := NEW.text || ' (garbled)'; END IF; RETURN NEW; END $$`);
    await t.pool.query(`CREATE TRIGGER wp_corrupt BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION wp_corrupt()`);
    try {
      const err = await runNext(new LocalEmbedder(384)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "INDEX_INTEGRITY_FAILED" });
      expect((err as Error).message).toMatch(/1 records whose text does not match their content hash/);
    } finally {
      await t.pool.query(`DROP TRIGGER wp_corrupt ON chunks; DROP FUNCTION wp_corrupt()`);
    }
    expect((await versions()).map((v) => [v.version_number, v.status])).toEqual([[1, "ACTIVE"]]);
  });

  it("a switch that fails its check keeps nothing it wrote: the vector embedded for it is not left for the retry to reuse", async () => {
    const names = ["refund", "travel", "badge", "payroll"];
    await pub(names.map(para));
    await runNext(new LocalEmbedder(384));
    const stored = async () =>
      (await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM chunk_vectors`)).rows[0].n;
    const before = await stored();
    await pub(names.map((n, i) => (i === 3 ? para("pension") : para(n))));
    await t.pool.query(`CREATE FUNCTION wp_corrupt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.ordinal = 1 THEN NEW.text := NEW.text || ' (garbled)'; END IF; RETURN NEW; END $$`);
    await t.pool.query(`CREATE TRIGGER wp_corrupt BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION wp_corrupt()`);
    try {
      await expect(runNext(new LocalEmbedder(384))).rejects.toMatchObject({ code: "INDEX_INTEGRITY_FAILED" });
    } finally {
      await t.pool.query(`DROP TRIGGER wp_corrupt ON chunks; DROP FUNCTION wp_corrupt()`);
    }
    // The "pension" vector was written in the failed switch; a rollback takes it with the version.
    expect(await stored()).toBe(before);
  });
});

describe("vectors stored once per document, content and embedding space", () => {
  const vectorsOf = async () =>
    (
      await t.pool.query<{ content_hash: string; refs: number }>(
        `SELECT v.content_hash, (SELECT count(*)::int FROM chunks c WHERE c.vector_id = v.id) AS refs FROM chunk_vectors v ORDER BY v.id`,
      )
    ).rows;

  it("are shared by every version holding the content; rollback serves the old text, and collection removes only vectors nothing references", async () => {
    await pub([para("alpha"), para("beta"), para("gamma")]);
    await runNext(new LocalEmbedder(384));
    await pub([para("alpha"), para("beta"), para("delta")]);
    await runNext(new LocalEmbedder(384));
    // Four vectors for six records: alpha and beta are referenced by both versions.
    expect((await vectorsOf()).map((v) => v.refs).sort()).toEqual([1, 1, 2, 2]);

    const embedder = new LocalEmbedder(384);
    const q = { tenant: TENANT, query: para("gamma"), topK: 1, principals: [] };
    expect((await search(t.pool, embedder, q))[0]).toMatchObject({ versionNumber: 2 });
    expect((await search(t.pool, embedder, q))[0].text).not.toContain("gamma");
    await rollback(t.pool, TENANT, "guide", 1, "test", { subject: "test" }, 24);
    expect((await search(t.pool, embedder, q))[0]).toMatchObject({ versionNumber: 1 });
    expect((await search(t.pool, embedder, q))[0].text).toContain("gamma");

    // v2 (retired by the rollback) passes retention: its records go, and with them delta's vector,
    // the only one no other record references.
    await t.pool.query(`UPDATE index_versions SET retired_at = now() - interval '2 hours' WHERE version_number = 2`);
    expect(await collectGarbage(t.pool, 1)).toBe(1);
    expect(await vectorsOf()).toHaveLength(3);
    expect((await vectorsOf()).map((v) => v.refs)).toEqual([1, 1, 1]);
    // A referenced vector cannot be deleted from under a record.
    await expect(t.pool.query(`DELETE FROM chunk_vectors`)).rejects.toThrow(/chunks_vector_id_fkey/);
  });

  it("a record pointing at another content's vector fails the switch, even with its own text intact", async () => {
    await pub([para("refund"), para("travel"), para("badge")]);
    await runNext(new LocalEmbedder(384));
    await pub([para("refund"), para("travel"), para("pension")]);
    // Ordinal 1 ("refund") is reused; on its way in it is pointed at travel's vector instead.
    await t.pool.query(`CREATE FUNCTION wp_swap() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.ordinal = 1 THEN
        NEW.vector_id := (SELECT v.id FROM chunk_vectors v WHERE v.document_id = NEW.document_id AND v.content_hash <> NEW.content_hash ORDER BY v.id LIMIT 1 OFFSET 1);
      END IF; RETURN NEW; END $$`);
    await t.pool.query(`CREATE TRIGGER wp_swap BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION wp_swap()`);
    try {
      const err = await runNext(new LocalEmbedder(384)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "INDEX_INTEGRITY_FAILED" });
      expect((err as Error).message).toMatch(/1 records whose vector is not the one stored for their content/);
    } finally {
      await t.pool.query(`DROP TRIGGER wp_swap ON chunks; DROP FUNCTION wp_swap()`);
    }
    expect((await versions()).map((v) => [v.version_number, v.status])).toEqual([[1, "ACTIVE"]]);
  });
});
