import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetContent, expireLease } from "../helpers/seed";
import { createTestDb, type TestDb } from "../helpers/db";
import { publish } from "../../lib/documents/publish";
import { claim, type Lease } from "../../lib/queue/engine";
import { executeTasks } from "../../lib/pipeline/run";
import type { MemberResult } from "../../lib/pipeline/member";
import { LocalEmbedder } from "../../lib/embedding";
import { LeaseLostError, TaskError } from "../../lib/queue/errors";

// Several INDEX tasks run as one batch (one worker slot): each keeps its own fence, manifest and
// switch, so a task that lost its lease, was superseded or failed its check ends alone and its
// siblings still finish.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => resetContent(t.pool));

const TENANT = "batch";
const OPTS = { batchSize: 64, batchMaxBytes: 1 << 20 };
const text = (key: string, n = 4, extra = "") =>
  [
    "# " + key,
    ...Array.from(
      { length: n },
      (_, i) =>
        `## Part ${i}\n\nThe ${key} rule ${i} says requests about ${key} go to desk ${i} and are answered within two days.${extra}`,
    ),
  ].join("\n\n");
const pub = (key: string, body = text(key)) =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(body),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 5,
  });

/** Records every embedder call; `onCall` runs before each (and may act on the database). */
class ScriptedEmbedder extends LocalEmbedder {
  calls: string[][] = [];
  constructor(private readonly onCall: (call: number, texts: string[]) => Promise<void> = async () => undefined) {
    super(384);
  }
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    this.calls.push(texts);
    await this.onCall(this.calls.length, texts);
    return super.embed(texts, signal);
  }
}

type Hooked = { lease: Lease; switched: boolean; superseded: string | null; controller: AbortController };

const prepare = (leases: Lease[]): Hooked[] =>
  leases.map((lease) => ({ lease, switched: false, superseded: null, controller: new AbortController() }));

async function runPrepared(hooked: Hooked[], embedder: LocalEmbedder, opts = OPTS): Promise<MemberResult[]> {
  return executeTasks(
    t.pool,
    embedder,
    hooked.map((h) => ({
      lease: h.lease,
      hooks: {
        signal: h.controller.signal,
        progress: () => undefined,
        beforeSwitch: () => {
          h.switched = true;
        },
        superseded: (reason: string) => {
          h.superseded = reason;
        },
      },
    })),
    opts,
  );
}

async function runBatch(
  leases: Lease[],
  embedder: LocalEmbedder,
  opts = OPTS,
): Promise<{ hooked: Hooked[]; results: MemberResult[] }> {
  const hooked = prepare(leases);
  return { hooked, results: await runPrepared(hooked, embedder, opts) };
}

/** Per document: its task's status, the pointer's version and index version status, and how many versions it has. */
async function state(key: string) {
  return (
    await t.pool.query(
      `SELECT (SELECT status FROM index_tasks it WHERE it.document_id = d.id ORDER BY task_id DESC LIMIT 1) AS task,
              sp.version_number AS serving, iv.status AS iv_status, iv.chunk_count, iv.expected_chunk_count,
              (SELECT count(*)::int FROM index_versions v WHERE v.document_id = d.id) AS versions
         FROM documents d
         LEFT JOIN search_pointers sp ON sp.document_id = d.id
         LEFT JOIN index_versions iv ON iv.id = sp.index_version_id
        WHERE d.key = $1`,
      [key],
    )
  ).rows[0];
}

const claimAll = (n: number) => claim(t.pool, "w-batch", 60, n);

describe("a batch of INDEX tasks", () => {
  it("indexes every document with one embedder call, one version each, each task completed under its own fence", async () => {
    for (const k of ["a", "b", "c"]) await pub(k);
    const leases = await claimAll(3);
    expect(leases).toHaveLength(3);
    const embedder = new ScriptedEmbedder();
    const { results, hooked } = await runBatch(leases, embedder);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    expect(results.map((r) => (r as PromiseFulfilledResult<{ chunksTotal: number }>).value.chunksTotal)).toEqual([
      4, 4, 4,
    ]);
    expect(embedder.calls).toHaveLength(1);
    expect(embedder.calls[0]).toHaveLength(12);
    expect(hooked.every((h) => h.switched)).toBe(true);
    for (const k of ["a", "b", "c"])
      expect(await state(k)).toEqual({
        task: "SUCCEEDED",
        serving: 1,
        iv_status: "ACTIVE",
        chunk_count: 4,
        expected_chunk_count: 4,
        versions: 1,
      });
    const events = await t.pool.query(
      `SELECT task_id::text, kind, lease_attempt FROM task_events WHERE kind = 'SUCCEEDED' ORDER BY task_id`,
    );
    expect(events.rows).toEqual(leases.map((l) => ({ task_id: l.taskId, kind: "SUCCEEDED", lease_attempt: 1 })));
  });

  it("re-publish: unchanged records are carried, only new text is embedded, old versions are retired for rollback", async () => {
    for (const k of ["a", "b"]) await pub(k);
    await runBatch(await claimAll(2), new LocalEmbedder(384));
    await pub("a", text("a", 5));
    await pub("b", text("b", 4, " Changed."));
    const embedder = new ScriptedEmbedder();
    const { results } = await runBatch(await claimAll(2), embedder);
    expect(results.map((r) => (r as PromiseFulfilledResult<{ chunksReused: number }>).value.chunksReused)).toEqual([
      4, 0,
    ]);
    expect(embedder.calls.flat()).toHaveLength(1 + 4);
    expect(await state("a")).toMatchObject({
      task: "SUCCEEDED",
      serving: 2,
      iv_status: "ACTIVE",
      chunk_count: 5,
      versions: 2,
    });
    expect(await state("b")).toMatchObject({
      task: "SUCCEEDED",
      serving: 2,
      iv_status: "ACTIVE",
      chunk_count: 4,
      versions: 2,
    });
    const retired = await t.pool.query(
      `SELECT count(*)::int AS n FROM index_versions WHERE status = 'RETIRED' AND version_number = 1`,
    );
    expect(retired.rows[0].n).toBe(2);
  });

  it("carries vectors only from the document's own versions, even when a sibling in the batch stores the same text", async () => {
    const body = (tag: string) =>
      [
        "# Shared",
        ...[0, 1, 2].map(
          (i) => `## Part ${i}\n\nShared rule ${i} ${tag} is the same words in every document that has it.`,
        ),
      ].join("\n\n");
    await pub("x", body("alpha"));
    await pub("y", body("beta"));
    await runBatch(await claimAll(2), new LocalEmbedder(384));
    // x now holds y's text (same section paths, same content hashes), while y changes one part.
    await pub("x", body("beta"));
    await pub("y", body("beta").replace("Shared rule 2 beta", "Shared rule 2 gamma"));
    const embedder = new ScriptedEmbedder();
    const { results } = await runBatch(await claimAll(2), embedder);
    expect(results[0]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 3, chunksReused: 0 } });
    expect(results[1]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 3, chunksReused: 2 } });
    // x's three texts are embedded (once, shared with y's changed one it does not hold): 3 + 1 texts.
    expect(embedder.calls.flat()).toHaveLength(4);
    expect(await state("x")).toMatchObject({ task: "SUCCEEDED", serving: 2, chunk_count: 3 });
  });

  it("a task whose lease was taken over and one superseded by a publish before the switch do not switch; their sibling finishes", async () => {
    for (const k of ["lost", "newer", "fine"]) await pub(k);
    const leases = await claimAll(3);
    const [lost, newer, fine] = leases;
    // During the (only) embedding call: "lost" is taken over by another worker, "newer" is published again.
    const embedder = new ScriptedEmbedder(async () => {
      await expireLease(t.pool, lost.taskId);
      const [taken] = await claim(t.pool, "w-other", 60, 1);
      expect(taken.taskId).toBe(lost.taskId);
      await pub("newer", text("newer", 2));
    });
    const { results, hooked } = await runBatch(leases, embedder);
    expect(results[0]).toMatchObject({ status: "rejected", reason: expect.any(LeaseLostError) });
    // publish superseded the running task of version 1, which takes its fence: it stops like a lost lease.
    expect(results[1]).toMatchObject({ status: "rejected", reason: expect.any(LeaseLostError) });
    expect(results[2]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 4 } });
    expect(hooked.map((h) => h.switched)).toEqual([false, false, true]);
    // The taken-over task still belongs to the other worker, untouched; nothing of its document is indexed.
    expect(
      (await t.pool.query(`SELECT status, lease_owner, attempts FROM index_tasks WHERE task_id = $1`, [lost.taskId]))
        .rows[0],
    ).toEqual({ status: "RUNNING", lease_owner: "w-other", attempts: 2 });
    expect(await state("lost")).toMatchObject({ serving: null, versions: 0 });
    // publish superseded the task of version 1 before its switch could: nothing was written for it.
    expect(
      (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [newer.taskId])).rows[0].status,
    ).toBe("SUPERSEDED");
    expect(await state("newer")).toMatchObject({ serving: null, versions: 0 });
    expect(await state("fine")).toMatchObject({ task: "SUCCEEDED", serving: 1, iv_status: "ACTIVE", versions: 1 });
    expect(
      (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [fine.taskId])).rows[0].status,
    ).toBe("SUCCEEDED");
  });

  it("a holder that finds its document moved on under the lock ends SUPERSEDED itself, recorded on its timeline, while its sibling switches", async () => {
    for (const k of ["moved", "fine"]) await pub(k);
    const leases = await claimAll(2);
    // The business version moves without superseding the task (as a publish racing the switch would).
    const embedder = new ScriptedEmbedder(async () => {
      await t.pool.query(`UPDATE documents SET business_version = business_version + 1 WHERE key = 'moved'`);
    });
    const { results, hooked } = await runBatch(leases, embedder);
    expect(results[0]).toEqual({ status: "fulfilled", value: null });
    expect(hooked[0].superseded).toBe("a newer version was published");
    expect(results[1]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 4 } });
    const ev = await t.pool.query(`SELECT kind, detail FROM task_events WHERE task_id = $1 ORDER BY id DESC LIMIT 1`, [
      leases[0].taskId,
    ]);
    expect(ev.rows[0]).toEqual({
      kind: "SUPERSEDED",
      detail: { reason: "a newer version was published", businessVersion: 2 },
    });
    expect(await state("moved")).toMatchObject({ task: "SUPERSEDED", serving: null, versions: 0 });
    expect(await state("fine")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
  });

  it("a lease lost during embedding stops that task at the next fence check; its siblings go on embedding and switch", async () => {
    for (const k of ["a", "b", "c"]) await pub(k, text(k, 6));
    const leases = await claimAll(3);
    // Batches of 4 texts: 18 texts, 5 calls. After the first call, b's lease is taken over.
    const embedder = new ScriptedEmbedder(async (call) => {
      if (call === 1) {
        await expireLease(t.pool, leases[1].taskId);
        await claim(t.pool, "w-other", 60, 1);
      }
    });
    const { results } = await runBatch(leases, embedder, { batchSize: 4, batchMaxBytes: 1 << 20 });
    expect(results[1]).toMatchObject({ status: "rejected", reason: expect.any(LeaseLostError) });
    expect(results[0]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 6 } });
    expect(results[2]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 6 } });
    // No text of b was embedded after its lease was gone.
    const bTexts = embedder.calls
      .slice(1)
      .flat()
      .filter((s) => s.includes("about b "));
    expect(bTexts).toEqual([]);
    expect(await state("b")).toMatchObject({ serving: null, versions: 0 });
    expect(await state("a")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
    expect(await state("c")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
  });

  it("a task aborted by its own heartbeat (lease lost) leaves the batch; the shared embedding call is not cut short for the others", async () => {
    for (const k of ["a", "b"]) await pub(k);
    const hooked = prepare(await claimAll(2));
    const embedder = new ScriptedEmbedder(async () => {
      hooked[0].controller.abort(new LeaseLostError(hooked[0].lease.taskId, "renew"));
    });
    const results = await runPrepared(hooked, embedder);
    expect(results[0]).toMatchObject({ status: "rejected", reason: expect.any(LeaseLostError) });
    expect(results[1]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 4 } });
    expect(embedder.calls).toHaveLength(1);
    expect(hooked[0].switched).toBe(false);
    expect(await state("a")).toMatchObject({ serving: null, versions: 0 });
    expect(await state("b")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
  });

  it("one record failing the integrity check fails its own task only; no version of it remains, the siblings are served", async () => {
    for (const k of ["good", "bad", "also"]) await pub(k);
    const leases = await claimAll(3);
    await t.pool.query(`CREATE FUNCTION batch_corrupt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.text LIKE '%about bad %' AND NEW.ordinal = 1 THEN NEW.text := NEW.text || ' (garbled)'; END IF; RETURN NEW; END $$`);
    await t.pool.query(
      `CREATE TRIGGER batch_corrupt BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION batch_corrupt()`,
    );
    try {
      const { results } = await runBatch(leases, new LocalEmbedder(384));
      expect(results[1]).toMatchObject({ status: "rejected", reason: { code: "INDEX_INTEGRITY_FAILED" } });
      expect((results[1] as PromiseRejectedResult).reason.message).toMatch(/text does not match their content hash/);
      expect(results[0].status).toBe("fulfilled");
      expect(results[2].status).toBe("fulfilled");
    } finally {
      await t.pool.query(`DROP TRIGGER batch_corrupt ON chunks; DROP FUNCTION batch_corrupt()`);
    }
    // Its task row is still held (the worker records the failure next); nothing of its version was kept.
    expect(
      (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [leases[1].taskId])).rows[0].status,
    ).toBe("RUNNING");
    expect(await state("bad")).toMatchObject({ serving: null, versions: 0 });
    expect(await state("good")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
    expect(await state("also")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
  });

  it("an embedder failure on a shared call decides nobody's outcome: each task runs again on its own", async () => {
    for (const k of ["a", "poison"]) await pub(k);
    const leases = await claimAll(2);
    class Picky extends ScriptedEmbedder {
      override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
        if (texts.some((s) => s.includes("about poison "))) {
          this.calls.push(texts);
          throw new TaskError("EMBEDDING_INVALID_RESPONSE", "the provider refused one input");
        }
        return super.embed(texts, signal);
      }
    }
    const embedder = new Picky();
    const { results } = await runBatch(leases, embedder);
    expect(results[0]).toMatchObject({ status: "fulfilled", value: { chunksTotal: 4 } });
    expect(results[1]).toMatchObject({ status: "rejected", reason: { code: "EMBEDDING_INVALID_RESPONSE" } });
    expect(await state("a")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
    expect(await state("poison")).toMatchObject({ serving: null, versions: 0 });
  });

  it("a second task of a document already in the batch runs on its own, after the batch", async () => {
    await pub("a");
    await pub("b");
    const leases = await claimAll(2);
    const embedder = new ScriptedEmbedder();
    const { results } = await runBatch([leases[0], leases[1], { ...leases[0] }], embedder);
    expect(results[0].status).toBe("fulfilled");
    expect(results[1].status).toBe("fulfilled");
    // The same lease twice: the second run finds the task already SUCCEEDED, so its fence fails.
    expect(results[2]).toMatchObject({ status: "rejected", reason: expect.any(LeaseLostError) });
    expect(await state("a")).toMatchObject({ task: "SUCCEEDED", serving: 1, versions: 1 });
  });
});
