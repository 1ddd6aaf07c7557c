import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { createTestDb, type TestDb } from "../helpers/db";
import { SlowEmbedder, longDocument } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import {
  requestDelete,
  reindex,
  rename,
  rollback,
  unpin,
  getDocument,
  listDocuments,
} from "../../lib/documents/repository";
import { bulkRetry, forceDone, retryTask } from "../../lib/operations/repository";
import { claim, fail, release } from "../../lib/queue/engine";
import { collectGarbage } from "../../lib/pipeline/run";
import { executeTask } from "../helpers/pipeline";
import { search } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import { loadConfig } from "../../lib/config";
import { DomainError } from "../../lib/domain/errors";
import { statusOf } from "../../lib/http/errors";
import { LeaseLostError } from "../../lib/queue/errors";
import type { Embedder } from "../../lib/embedding/types";
import { spaceFor } from "../helpers/spaces";
import { SPACE_LOCK_NAMESPACE } from "../../lib/spaces/sql";

// Where two features meet. Each case here failed on the code before the fix it names.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await resetContent(t.pool);
  await t.pool.query(`TRUNCATE audit_log`);
});

const TENANT = "seam";
const actor = { subject: "test:operator" };
const local = new LocalEmbedder(384);
const hooks = () => ({ signal: new AbortController().signal, progress: () => undefined });
const opts = { batchSize: 4, batchMaxBytes: 1 << 20 };

const pub = (key: string, content: string, acl: string[] = []) =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(content),
    acl,
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });

/** Claim and run due tasks one by one, like a worker would, until none is due. */
async function drain(embedder: Embedder = local, worker = "w-drain"): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const [lease] = await claim(t.pool, worker, 60, 1);
    if (!lease) return;
    await executeTask(t.pool, embedder, lease, hooks(), opts);
  }
  throw new Error("drain did not settle");
}

async function doc(key: string) {
  return (
    await t.pool.query<{
      business_version: number;
      deleted_at: Date | null;
      search_version: number | null;
      pinned: boolean | null;
    }>(
      `SELECT d.business_version, d.deleted_at, sp.version_number AS search_version, sp.pinned
         FROM documents d LEFT JOIN search_pointers sp ON sp.document_id = d.id WHERE d.tenant_id = $1 AND d.key = $2`,
      [TENANT, key],
    )
  ).rows[0];
}

const hitsFor = async (query: string, embedder: Embedder = local) =>
  search(t.pool, embedder, { tenant: TENANT, query, topK: 5, principals: [] });

describe("DELETE bound to the version it deletes", () => {
  it("a publish after a delete supersedes the pending DELETE; the re-published document stays searchable", async () => {
    await pub("policy", "# Policy\n\nrefunds within thirty days");
    await drain();
    const del = await requestDelete(t.pool, TENANT, "policy", "test", 3);
    await pub("policy", "# Policy\n\nrefunds within sixty days");
    await drain();
    expect(await doc("policy")).toMatchObject({ business_version: 2, deleted_at: null, search_version: 2 });
    const task = (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [del!.taskId])).rows[0];
    expect(task.status).toBe("SUPERSEDED");
    expect((await hitsFor("refunds within sixty days"))[0]).toMatchObject({ documentKey: "policy", versionNumber: 2 });
  });

  it("force-done of a DEAD DELETE does the delete's work (the chunks go to garbage collection); of an obsolete one, nothing", async () => {
    const statuses = async (key: string) =>
      (
        await t.pool.query(
          `SELECT iv.status FROM index_versions iv JOIN documents d ON d.id = iv.document_id WHERE d.key = $1 ORDER BY iv.version_number`,
          [key],
        )
      ).rows.map((r) => r.status);
    await pub("policy", "# Policy\n\nrefunds within thirty days");
    await pub("memo", "# Memo\n\nquarterly numbers memo");
    await drain();
    const dead = await requestDelete(t.pool, TENANT, "policy", "test", 3);
    const obsolete = await requestDelete(t.pool, TENANT, "memo", "test", 3);
    await pub("memo", "# Memo\n\nquarterly numbers memo, revised");
    await drain();
    expect(await doc("memo")).toMatchObject({ deleted_at: null, search_version: 2 });
    // The policy's DELETE died before its transaction committed: the pointer and ACTIVE version stayed.
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'INTERNAL_ERROR', finished_at = now() WHERE task_id = ANY($1::bigint[])`,
      [[dead!.taskId]],
    );
    await t.pool.query(`INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number)
      SELECT iv.document_id, d.tenant_id, iv.id, iv.version_number FROM index_versions iv JOIN documents d ON d.id = iv.document_id WHERE d.key = 'policy'`);
    await t.pool.query(
      `UPDATE index_versions iv SET status = 'ACTIVE', retired_at = NULL FROM documents d WHERE d.id = iv.document_id AND d.key = 'policy'`,
    );
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'INTERNAL_ERROR', finished_at = now() WHERE task_id = $1`,
      [obsolete!.taskId],
    );

    await forceDone(t.pool, dead!.taskId, actor, "the worker kept dying on it", null);
    expect(await doc("policy")).toMatchObject({ search_version: null });
    expect(await statuses("policy")).toEqual(["RETIRED"]);
    const ev = (
      await t.pool.query(`SELECT detail FROM task_events WHERE task_id = $1 AND kind = 'OPERATOR_FORCE_DONE'`, [
        dead!.taskId,
      ])
    ).rows[0];
    expect(ev.detail).toEqual({ reason: "the worker kept dying on it", removedFromSearch: true });

    await forceDone(t.pool, obsolete!.taskId, actor, "re-published since", null);
    expect(await doc("memo")).toMatchObject({ deleted_at: null, search_version: 2 });
    expect(await statuses("memo")).toEqual(["RETIRED", "ACTIVE"]);
    expect((await hitsFor("quarterly numbers memo revised"))[0]).toMatchObject({
      documentKey: "memo",
      versionNumber: 2,
    });
  });

  it("a DELETE that runs late (revived after the re-publish) is a recorded no-op", async () => {
    await pub("policy", "# Policy\n\nrefunds within thirty days");
    await drain();
    const del = await requestDelete(t.pool, TENANT, "policy", "test", 3);
    await pub("policy", "# Policy\n\nrefunds within sixty days");
    await drain();
    // The way a retry or a takeover could bring it back: due again, as if nothing had superseded it.
    await t.pool.query(`UPDATE index_tasks SET status = 'PENDING', finished_at = NULL WHERE task_id = $1`, [
      del!.taskId,
    ]);
    const [lease] = await claim(t.pool, "late", 60, 1);
    expect(lease.taskId).toBe(del!.taskId);
    expect(await executeTask(t.pool, local, lease, hooks(), opts)).toBeNull();
    expect(await doc("policy")).toMatchObject({ business_version: 2, deleted_at: null, search_version: 2 });
    const ev = await t.pool.query(
      `SELECT t.status, e.detail FROM index_tasks t JOIN task_events e ON e.task_id = t.task_id AND e.kind = 'SUPERSEDED' AND e.actor = 'late' WHERE t.task_id = $1`,
      [del!.taskId],
    );
    expect(ev.rows).toEqual([
      {
        status: "SUPERSEDED",
        detail: { reason: "document republished after the delete was requested", businessVersion: 2 },
      },
    ]);
    expect((await hitsFor("refunds within sixty days"))[0]).toMatchObject({ documentKey: "policy", versionNumber: 2 });
  });

  it("a DELETE held by a worker when the document is re-published is fenced out and writes nothing", async () => {
    await pub("policy", "# Policy\n\nrefunds within thirty days");
    await drain();
    await requestDelete(t.pool, TENANT, "policy", "test", 3);
    const [lease] = await claim(t.pool, "slow-delete", 60, 1);
    expect(lease.taskType).toBe("DELETE");
    await pub("policy", "# Policy\n\nrefunds within sixty days");
    await expect(executeTask(t.pool, local, lease, hooks(), opts)).rejects.toBeInstanceOf(LeaseLostError);
    await drain();
    expect(await doc("policy")).toMatchObject({ business_version: 2, deleted_at: null, search_version: 2 });
  });
});

describe("delete then publish", () => {
  it("the deleted version is not served again while the re-published one is being indexed", async () => {
    await pub("secret", "# Secret\n\nthe launch code is swordfish");
    await drain();
    await requestDelete(t.pool, TENANT, "secret", "test", 3);
    expect(await hitsFor("the launch code is swordfish")).toEqual([]);
    await pub("secret", "# Secret\n\nnothing to see here any more");
    // Before the new version is indexed: no pointer, nothing of v1 in search.
    expect(await doc("secret")).toMatchObject({ business_version: 2, deleted_at: null, search_version: null });
    expect((await hitsFor("the launch code is swordfish")).filter((h) => h.documentKey === "secret")).toEqual([]);
    await drain();
    expect((await hitsFor("nothing to see here any more"))[0]).toMatchObject({
      documentKey: "secret",
      versionNumber: 2,
    });
    expect((await hitsFor("the launch code is swordfish")).every((h) => h.versionNumber === 2)).toBe(true);
  });
});

describe("unpin returns search to the business version", () => {
  it("unpin without a pin changes nothing and is audited; a DEAD business-version task is left to the operator", async () => {
    await pub("notes", "# Notes\n\nfirst notes");
    await drain();
    expect(await unpin(t.pool, TENANT, "notes", actor, { retentionHours: 24, maxAttempts: 3 })).toMatchObject({
      pinned: false,
      searchVersion: 1,
      taskId: null,
    });
    const v2 = await pub("notes", "# Notes\n\nsecond notes");
    const [l2] = await claim(t.pool, "w", 60, 1);
    await fail(t.pool, l2, "PARSE_ERROR", "bad", { baseSeconds: 0, maxSeconds: 0, jitter: 0 });
    await rollback(t.pool, TENANT, "notes", 1, "pin while v2 is broken", actor, 24);
    const r = await unpin(t.pool, TENANT, "notes", actor, { retentionHours: 24, maxAttempts: 3 });
    expect(r).toMatchObject({ pinned: false, searchVersion: 1, taskId: v2.taskId });
    expect(
      (await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks WHERE task_type = 'REINDEX'`)).rows[0].n,
    ).toBe(0);
    const audits = (
      await t.pool.query(`SELECT detail FROM audit_log WHERE action = 'document.unpin' ORDER BY id`)
    ).rows.map((x) => x.detail);
    expect(audits).toEqual([{ wasPinned: false }, { wasPinned: true, from: 1, to: 1, taskId: v2.taskId }]);
  });

  it("rollback to v1 → reindex → unpin: search serves v2 again", async () => {
    await pub("guide", "# Guide\n\nalpha edition text");
    await drain();
    await pub("guide", "# Guide\n\nbeta edition text");
    await drain();
    await rollback(t.pool, TENANT, "guide", 1, "bad edit", actor, 24);
    await reindex(t.pool, TENANT, "guide", actor, 3);
    await drain();
    expect(await doc("guide")).toMatchObject({ search_version: 1, pinned: true });
    const r = await unpin(t.pool, TENANT, "guide", actor, { retentionHours: 24, maxAttempts: 3 });
    expect(r).toMatchObject({ pinned: false, searchVersion: 2, taskId: null });
    expect(await doc("guide")).toMatchObject({ search_version: 2, pinned: false });
    expect((await hitsFor("beta edition text"))[0]).toMatchObject({ documentKey: "guide", versionNumber: 2 });
    const audit = await t.pool.query(`SELECT action, detail FROM audit_log WHERE action = 'document.unpin'`);
    expect(audit.rows).toEqual([
      { action: "document.unpin", detail: { wasPinned: true, from: 1, to: 2, taskId: null } },
    ]);
  });

  it("unpin with no complete index version of the business version left enqueues the REINDEX that builds it", async () => {
    await pub("guide", "# Guide\n\nalpha edition text");
    await drain();
    await pub("guide", "# Guide\n\nbeta edition text");
    await drain();
    await rollback(t.pool, TENANT, "guide", 1, "bad edit", actor, 24);
    // Retention passes: the v2 index version is collected.
    await t.pool.query(`UPDATE index_versions SET retired_at = now() - interval '2 hours' WHERE version_number = 2`);
    expect(await collectGarbage(t.pool, 1)).toBe(1);
    const r = await unpin(t.pool, TENANT, "guide", actor, { retentionHours: 1, maxAttempts: 3 });
    expect(r).toMatchObject({ pinned: false, searchVersion: 1 });
    expect(r.taskId).not.toBeNull();
    await drain();
    expect(await doc("guide")).toMatchObject({ search_version: 2, pinned: false });
  });
});

describe("integrity against the parse manifest", () => {
  it("a record altered on its way into the table fails the switch with INDEX_INTEGRITY_FAILED; the old version keeps serving", async () => {
    await pub("handbook", longDocument(6, "first"));
    await drain();
    await pub("handbook", longDocument(6, "second"));
    // The database "keeps" a different text than was written for one record: the count still matches.
    await t.pool.query(`CREATE FUNCTION seam_corrupt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.ordinal = 2 THEN NEW.text := NEW.text || ' (garbled)'; END IF; RETURN NEW; END $$`);
    await t.pool.query(
      `CREATE TRIGGER seam_corrupt BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION seam_corrupt()`,
    );
    try {
      const [lease] = await claim(t.pool, "w-int", 60, 1);
      const err = await executeTask(t.pool, local, lease, hooks(), opts).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "INDEX_INTEGRITY_FAILED" });
      const f = await fail(t.pool, lease, "INDEX_INTEGRITY_FAILED", (err as Error).message, {
        baseSeconds: 0,
        maxSeconds: 0,
        jitter: 0,
      });
      expect(f.status).toBe("RETRY_WAIT");
      expect(await doc("handbook")).toMatchObject({ business_version: 2, search_version: 1 });
      expect(
        (await t.pool.query(`SELECT count(*)::int AS n FROM index_versions WHERE version_number = 2`)).rows[0].n,
      ).toBe(0);
    } finally {
      await t.pool.query(`DROP TRIGGER seam_corrupt ON chunks; DROP FUNCTION seam_corrupt()`);
    }
    await drain();
    expect(await doc("handbook")).toMatchObject({ search_version: 2 });
  });
});

describe("integrity: lost and swapped records", () => {
  async function withTrigger(body: string, fn: () => Promise<void>) {
    await t.pool.query(`CREATE FUNCTION seam_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} END $$`);
    await t.pool.query(`CREATE TRIGGER seam_fault BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION seam_fault()`);
    try {
      await fn();
    } finally {
      await t.pool.query(`DROP TRIGGER seam_fault ON chunks; DROP FUNCTION seam_fault()`);
    }
  }
  async function switchFails(pattern: RegExp) {
    const [lease] = await claim(t.pool, "w-int", 60, 1);
    const err = await executeTask(t.pool, local, lease, hooks(), opts).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "INDEX_INTEGRITY_FAILED" });
    expect((err as Error).message).toMatch(pattern);
    await fail(t.pool, lease, "INDEX_INTEGRITY_FAILED", (err as Error).message, {
      baseSeconds: 0,
      maxSeconds: 0,
      jitter: 0,
    });
    expect(await doc("handbook")).toMatchObject({ business_version: 2, search_version: 1 });
  }

  it("a record the table silently drops fails on the count", async () => {
    await pub("handbook", longDocument(6, "first"));
    await drain();
    await pub("handbook", longDocument(6, "second"));
    await withTrigger(`IF NEW.ordinal = 3 THEN RETURN NULL; END IF; RETURN NEW;`, () =>
      switchFails(/records, expected/),
    );
  });

  it("a record replaced by another consistent one (text and hash agree) fails on the manifest digest", async () => {
    await pub("handbook", longDocument(6, "first"));
    await drain();
    await pub("handbook", longDocument(6, "second"));
    await withTrigger(
      `IF NEW.ordinal = 3 THEN NEW.text := 'a different paragraph'; NEW.content_hash := encode(sha256(convert_to(NEW.section_path || E'\\n' || NEW.text, 'UTF8')), 'hex'); END IF; RETURN NEW;`,
      () => switchFails(/differ from the parse manifest/),
    );
  });
});

describe("an ACL a re-publish restricts applies to search at once", () => {
  const keys = async (principals: string[], mode: "vector" | "text" | "hybrid") =>
    new Set(
      (
        await search(t.pool, local, {
          tenant: TENANT,
          query: "salary bands reviewed spring",
          topK: 10,
          principals,
          mode,
        })
      ).map((h) => `${h.documentKey} v${h.versionNumber}`),
    );

  it("before the new version is built, over a cancelled build, and over a rollback to the open version", async () => {
    const text = "# Pay\n\nSalary bands are reviewed every spring.";
    await pub("pay", text);
    await pub("other", "# Other\n\nSpring salary bands for the sales team are reviewed too.");
    await drain();
    for (const mode of ["vector", "text", "hybrid"] as const)
      expect(await keys([], mode), mode).toEqual(new Set(["pay v1", "other v1"]));

    // The same text, now for group:hr only. Its build has not run: v1 (open) still serves.
    const v2 = await pub("pay", text, ["group:hr"]);
    expect((await doc("pay")).search_version).toBe(1);
    for (const mode of ["vector", "text", "hybrid"] as const) {
      expect(await keys([], mode), mode).toEqual(new Set(["other v1"]));
      expect(await keys(["group:hr"], mode), mode).toEqual(new Set(["pay v1", "other v1"]));
    }
    // Its build cancelled: v1 keeps serving, restricted by v2's ACL.
    await t.pool.query(
      `UPDATE index_tasks SET status = 'CANCELLED', error_code = 'OPERATOR_CANCELLED', finished_at = now() WHERE task_id = $1`,
      [v2.taskId],
    );
    expect(await keys([], "vector")).toEqual(new Set(["other v1"]));

    // Built, then rolled back to the open v1 (pinned): the latest ACL still applies.
    await retryTask(t.pool, v2.taskId!, actor, "build it", 3, null);
    await drain();
    expect(await keys(["group:hr"], "vector")).toEqual(new Set(["pay v2", "other v1"]));
    await rollback(t.pool, TENANT, "pay", 1, "figures were wrong", actor, 24);
    expect(await keys(["group:hr"], "vector")).toEqual(new Set(["pay v1", "other v1"]));
    expect(await keys([], "vector")).toEqual(new Set(["other v1"]));
    // Opening it again by a publish opens the served version too.
    await pub("pay", text, []);
    expect(await keys([], "text")).toEqual(new Set(["pay v1", "other v1"]));
  });
});

describe("search, state and rollback bound to the tenant's active index space", () => {
  const other = new LocalEmbedder(384, "another-model");
  /** The tenant moved by hand to a space of `other` (a migration would have built it there first). */
  const moveTenant = (embedder: Embedder = other, o: { name?: string; chunkTargetChars?: number } = {}) =>
    spaceFor(t.pool, embedder, { tenants: [TENANT], ...o });

  it("search does not mix embedding spaces of equal dimension: a tenant on another space finds nothing of the old one", async () => {
    await pub("memo", "# Memo\n\nquarterly numbers memo");
    await drain();
    expect((await hitsFor("quarterly numbers memo")).length).toBeGreaterThan(0);
    await moveTenant();
    expect(await hitsFor("quarterly numbers memo", other)).toEqual([]);
  });

  it("after the tenant moves to another space, a document served by a version of the old one does not read SEARCHABLE until it is rebuilt there", async () => {
    await pub("memo", "# Memo\n\nquarterly numbers memo");
    await drain();
    expect(await getDocument(t.pool, TENANT, "memo")).toMatchObject({
      state: "SEARCHABLE",
      searchVersion: 1,
      searchVersionServed: true,
      embeddingSpace: { name: "local", model: local.model, dimensions: 384 },
    });
    const id = await moveTenant();
    expect(await getDocument(t.pool, TENANT, "memo")).toMatchObject({
      state: "NOT_INDEXED",
      searchVersion: 1,
      searchVersionServed: false,
      embeddingSpace: { id, model: other.model, dimensions: 384 },
    });
    expect(
      (await listDocuments(t.pool, { tenants: null, tenant: TENANT, state: "NOT_INDEXED", limit: 10 })).items.map(
        (d) => d.key,
      ),
    ).toEqual(["memo"]);
    await reindex(t.pool, TENANT, "memo", actor, 3);
    expect(await getDocument(t.pool, TENANT, "memo")).toMatchObject({ state: "INDEXING" });
    await drain(other);
    expect(await getDocument(t.pool, TENANT, "memo")).toMatchObject({
      state: "SEARCHABLE",
      searchVersionServed: true,
    });
    expect((await hitsFor("quarterly numbers memo", other))[0]).toMatchObject({ documentKey: "memo" });
  });

  it("after the tenant moves to another space an unchanged publish answers with the state the documents view shows, not SEARCHABLE", async () => {
    const content = "# Memo\n\nquarterly numbers memo";
    await pub("memo", content);
    await drain();
    await moveTenant();
    const again = () => pub("memo", content);
    expect(await again()).toMatchObject({
      created: false,
      versionNumber: 1,
      state: "NOT_INDEXED",
      searchVersion: 1,
      searchVersionServed: false,
    });
    expect((await getDocument(t.pool, TENANT, "memo"))!.state).toBe("NOT_INDEXED");
    await reindex(t.pool, TENANT, "memo", actor, 3);
    expect(await again()).toMatchObject({ created: false, state: "INDEXING", searchVersionServed: false });
    await drain(other);
    expect(await again()).toMatchObject({
      created: false,
      state: "SEARCHABLE",
      searchVersion: 1,
      searchVersionServed: true,
    });
  });

  it("rollback refuses an index version built in a space other than the tenant's active one, even of the same model, and names the model it was built with", async () => {
    await pub("memo", "# Memo\n\nfirst memo text");
    await drain();
    await moveTenant();
    await pub("memo", "# Memo\n\nsecond memo text");
    await drain(other);
    const refused = (to: number) =>
      rollback(t.pool, TENANT, "memo", to, "try", actor, 24).then(
        () => null,
        (e: unknown) => e as DomainError,
      );
    const err = await refused(1);
    expect(err).toBeInstanceOf(DomainError);
    expect(err!.code).toBe("ROLLBACK_INCOMPATIBLE");
    expect(statusOf(err!)).toBe(409);
    expect(err!.message).toContain(`v1 was indexed with ${local.model} (384 dimensions, index space local)`);
    expect(err!.message).toContain(`now embeds with ${other.model}`);
    expect(await doc("memo")).toMatchObject({ search_version: 2, pinned: false });

    // A space of the same model and dimensions, chunked otherwise: still not the space search reads.
    await moveTenant(local, { name: "local-rechunked", chunkTargetChars: 600 });
    await pub("memo", "# Memo\n\nthird memo text");
    await drain();
    const versions = await t.pool.query<{ version_number: number; name: string }>(
      `SELECT iv.version_number, s.name FROM index_versions iv JOIN embedding_spaces s ON s.id = iv.space_id ORDER BY iv.version_number`,
    );
    expect(versions.rows.map((r) => [r.version_number, r.name])).toEqual([
      [1, "local"],
      [2, expect.stringContaining("another-model")],
      [3, "local-rechunked"],
    ]);
    for (const to of [1, 2]) expect((await refused(to))?.code, `v${to}`).toBe("ROLLBACK_INCOMPATIBLE");
    expect(await doc("memo")).toMatchObject({ search_version: 3, pinned: false });

    // Back on the space v2 was built in: v2 is a rollback target again, pinned there.
    await moveTenant();
    expect(await rollback(t.pool, TENANT, "memo", 2, "back", actor, 24)).toMatchObject({
      searchVersion: 2,
      pinned: true,
    });
    expect(await getDocument(t.pool, TENANT, "memo")).toMatchObject({
      state: "SEARCHABLE",
      searchVersion: 2,
      searchVersionServed: true,
      pinned: true,
    });
  });

  it("rollback and unpin wait for a switch that holds the tenant's space lock, then judge by the space it left", async () => {
    await pub("memo", "# Memo\n\nfirst memo text");
    await drain();
    await pub("memo", "# Memo\n\nsecond memo text");
    await drain();
    await rollback(t.pool, TENANT, "memo", 1, "pin", actor, 24);
    const otherId = await spaceFor(t.pool, other);
    const localId = (await t.pool.query(`SELECT active_space_id FROM tenants WHERE id = $1`, [TENANT])).rows[0]
      .active_space_id as number;
    /** `action` started while a switch holds the space lock exclusive and moves the tenant to `to`. */
    const duringSwitch = async <T>(to: number, action: () => Promise<T>): Promise<T> => {
      const switching = await t.pool.connect();
      try {
        await switching.query("BEGIN");
        await switching.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [SPACE_LOCK_NAMESPACE, TENANT]);
        const done = action().then(
          (v) => ({ v }),
          (e: unknown) => ({ e }),
        );
        for (let i = 0; ; i++) {
          const waiting = await t.pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
          if (waiting.rows.length > 0) break;
          if (i > 100) throw new Error("the action never waited for the space lock");
          await new Promise((r) => setTimeout(r, 20));
        }
        await switching.query(`UPDATE tenants SET active_space_id = $2 WHERE id = $1`, [TENANT, to]);
        await switching.query("COMMIT");
        const r = await done;
        if ("e" in r) throw r.e;
        return r.v;
      } finally {
        switching.release();
      }
    };
    // The unpin began on the local space, where v2 is built; the switch left the tenant on
    // another, where nothing is: the pin is released and a REINDEX builds v2 there.
    const u = await duringSwitch(otherId, () =>
      unpin(t.pool, TENANT, "memo", actor, { retentionHours: 24, maxAttempts: 3 }),
    );
    expect(u).toMatchObject({ pinned: false, searchVersion: 1 });
    expect(u.taskId).not.toBeNull();
    expect(await doc("memo")).toMatchObject({ search_version: 1, pinned: false });
    // The rollback began with the tenant on the other space, where v2 could not be served; the
    // switch moved it back, where it can.
    expect(
      await duringSwitch(localId, () => rollback(t.pool, TENANT, "memo", 2, "back to v2", actor, 24)),
    ).toMatchObject({ searchVersion: 2, pinned: true });
    expect(await doc("memo")).toMatchObject({ search_version: 2, pinned: true });
  });
});

describe("chunk ids", () => {
  it("abstract and overview records are named per version like every chunk; their embeddings are still reused", async () => {
    const withSummary = (content: string) =>
      publish(t.pool, {
        tenant: TENANT,
        key: "brief",
        title: "brief",
        contentType: "text/markdown",
        content: Buffer.from(content),
        acl: [],
        abstract: "the same short abstract",
        overview: "the same overview",
        actor: "test",
        maxAttempts: 3,
      });
    await withSummary("# Brief\n\nfirst body");
    await drain();
    const v2 = await withSummary("# Brief\n\nsecond body");
    await drain();
    const ids = await t.pool.query<{ level: number; n: number }>(
      `SELECT c.level, count(DISTINCT c.chunk_id)::int AS n FROM chunks c WHERE c.level < 2 GROUP BY c.level ORDER BY c.level`,
    );
    expect(ids.rows).toEqual([
      { level: 0, n: 2 },
      { level: 1, n: 2 },
    ]);
    const task = (
      await t.pool.query(`SELECT chunks_total, chunks_reused FROM index_tasks WHERE task_id = $1`, [v2.taskId])
    ).rows[0];
    expect(task.chunks_reused).toBe(2);
  });
});

describe("garbage collection", () => {
  it("READY versions that never became active are collected after retention; pinned and active ones never", async () => {
    await pub("faq", "# FAQ\n\nfirst answer");
    await drain();
    await pub("faq", "# FAQ\n\nsecond answer");
    await drain();
    await rollback(t.pool, TENANT, "faq", 1, "pin", actor, 24);
    await reindex(t.pool, TENANT, "faq", actor, 3);
    await drain();
    const before = await t.pool.query(`SELECT version_number, status FROM index_versions ORDER BY created_at`);
    expect(before.rows).toEqual([
      { version_number: 1, status: "ACTIVE" },
      { version_number: 2, status: "RETIRED" },
      { version_number: 2, status: "READY" },
    ]);
    await t.pool.query(
      `UPDATE index_versions SET created_at = now() - interval '2 hours', retired_at = CASE WHEN retired_at IS NULL THEN NULL ELSE now() - interval '2 hours' END, activated_at = now() - interval '2 hours'`,
    );
    expect(await collectGarbage(t.pool, 1)).toBe(2);
    const after = await t.pool.query(`SELECT version_number, status FROM index_versions`);
    expect(after.rows).toEqual([{ version_number: 1, status: "ACTIVE" }]);
  });
});

describe("attempts and retries", () => {
  it("a waiting task with no attempt left (as an older release's shutdown left them) is skipped by the claim instead of failing it", async () => {
    const stale = await pub("stale", "# Stale\n\nold row");
    await t.pool.query(
      `UPDATE index_tasks SET status = 'RETRY_WAIT', attempts = 3, max_attempts = 3, next_attempt_at = now() - interval '1 minute' WHERE task_id = $1`,
      [stale.taskId],
    );
    const fresh = await pub("fresh", "# Fresh\n\nnew row");
    const leases = await claim(t.pool, "w", 60, 5);
    expect(leases.map((l) => l.taskId)).toEqual([fresh.taskId]);
  });

  it("release at shutdown refunds the attempt: attempts never pass max_attempts", async () => {
    const p = await pub("one", "# One\n\nsome text");
    await t.pool.query(`UPDATE index_tasks SET max_attempts = 1 WHERE task_id = $1`, [p.taskId]);
    const [l1] = await claim(t.pool, "w1", 60, 1);
    expect(await release(t.pool, l1)).toBe(true);
    const [l2] = await claim(t.pool, "w1", 60, 1);
    const row = (await t.pool.query(`SELECT attempts, max_attempts FROM index_tasks WHERE task_id = $1`, [p.taskId]))
      .rows[0];
    expect(l2.leaseAttempt).toBe(2);
    expect(row.attempts).toBeLessThanOrEqual(row.max_attempts);
  });

  it("a heartbeat at or past the lease is refused at start", () => {
    expect(() => loadConfig({ LEASE_SECONDS: "10", HEARTBEAT_SECONDS: "10" })).toThrow(
      /HEARTBEAT_SECONDS .* must be less than LEASE_SECONDS/,
    );
    expect(loadConfig({ LEASE_SECONDS: "10", HEARTBEAT_SECONDS: "3" }).heartbeatSeconds).toBe(3);
  });

  it("a RUNNING task superseded mid-embedding stops calling the provider at its next batch", async () => {
    await pub("big", longDocument(40, "v1"));
    const slow = new SlowEmbedder(60);
    const [lease] = await claim(t.pool, "w-slow", 60, 1);
    const run = executeTask(t.pool, slow, lease, hooks(), { batchSize: 1, batchMaxBytes: 1 << 20 }).then(
      () => null,
      (e: unknown) => e,
    );
    while (slow.calls < 3) await new Promise((r) => setTimeout(r, 10));
    await pub("big", longDocument(40, "v2"));
    const callsAtSupersede = slow.calls;
    expect(await run).toBeInstanceOf(LeaseLostError);
    // At most the batch already in flight completes; 40+ were still to go.
    expect(slow.calls - callsAtSupersede).toBeLessThanOrEqual(1);
  });

  it("retry of a DEAD task whose version was superseded is refused; bulk retry skips it", async () => {
    await pub("doc", "# Doc\n\nv1 text");
    const [l1] = await claim(t.pool, "w", 60, 1);
    await fail(t.pool, l1, "PARSE_ERROR", "bad", { baseSeconds: 0, maxSeconds: 0, jitter: 0 });
    await pub("doc", "# Doc\n\nv2 text");
    const err = await retryTask(t.pool, l1.taskId, actor, null, 3, null).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as DomainError).code).toBe("TASK_SUPERSEDED");
    expect(statusOf(err as DomainError)).toBe(409);
    expect(await bulkRetry(t.pool, {}, actor, null, 3, null)).toEqual({ retried: 0, skipped: 1 });
    expect((await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [l1.taskId])).rows[0].status).toBe(
      "DEAD",
    );
    // Closing it is still allowed, and audited.
    await forceDone(t.pool, l1.taskId, actor, "obsolete", null);
    const actions = (await t.pool.query(`SELECT action FROM audit_log ORDER BY id`)).rows.map((r) => r.action);
    expect(actions).toEqual(["task.bulk_retry", "task.force_done"]);
  });

  it("renaming a key that does not exist is a 404, even when the new key exists; repeating a real rename is still harmless", async () => {
    await pub("alpha", "# A\n\ntext a");
    await pub("beta", "# B\n\ntext b");
    const err = await rename(t.pool, TENANT, "missing", "beta", actor).then(
      () => null,
      (e: unknown) => e,
    );
    expect(statusOf(err as DomainError)).toBe(404);
    expect(await rename(t.pool, TENANT, "alpha", "gamma", actor)).toMatchObject({ renamed: true });
    expect(await rename(t.pool, TENANT, "alpha", "gamma", actor)).toMatchObject({ renamed: false, key: "gamma" });
  });
});
