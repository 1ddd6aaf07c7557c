import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { createTestDb, type TestDb } from "../helpers/db";
import { publish } from "../../lib/documents/publish";
import { reindex, requestDelete } from "../../lib/documents/repository";
import { overview } from "../../lib/operations/repository";
import { claim } from "../../lib/queue/engine";
import { executeTask } from "../helpers/pipeline";
import { search } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import { overviewSchema } from "../../lib/ui/schemas";
import { ANOMALY_KINDS } from "../../lib/domain/constants";
import { reconcile, reconcileTick, RECONCILER_LOCK_KEY, type ReconcileOptions } from "../../lib/reconcile/reconcile";
import type { ReconcileConfig } from "../../lib/config";
import { CHUNKER_VERSION } from "../../lib/pipeline/chunker";
import { SPACE_LOCK_NAMESPACE } from "../../lib/spaces/sql";

// Every finding kind is seeded through the library (publish, claim, the real pipeline) plus the
// SQL that produces the broken state; each pass's repair is checked in the database, the pointer
// switch through the real search().
let t: TestDb;
const TOKEN = "reconcile-token-0123456789abcdef";
const embedder = new LocalEmbedder(384);
const TENANT = "rc";

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});
beforeEach(async () => {
  await t.pool.query(
    `TRUNCATE anomaly_events, reconcile_passes, chunks, search_pointers, index_versions, task_events, index_tasks, document_versions, documents, tenants CASCADE`,
  );
});

const CONFIG: Partial<ReconcileConfig> = {
  RECONCILE_DRIFT_SECONDS: 300,
  RECONCILE_LEASE_GRACE_SECONDS: 60,
  RECONCILE_MAX_REPAIRS: 100,
  RECONCILE_SCAN_LIMIT: 1000,
};

function pass(o: Partial<ReconcileOptions> & { config?: Partial<ReconcileConfig> } = {}) {
  return reconcile(t.pool, {
    actor: "test-worker",
    maxAttempts: 8,
    retentionHours: 1,
    force: true,
    ...o,
    config: { ...CONFIG, ...o.config },
  });
}

async function ran(o: Parameters<typeof pass>[0] = {}) {
  const r = await pass(o);
  if (!r.ran) throw new Error(`pass did not run: ${r.reason}`);
  return r;
}

const pub = (key: string, content: string) =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(content),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 8,
  });

/** Run every due task through the real pipeline, as a worker would. */
async function drain(e = embedder): Promise<number> {
  let n = 0;
  for (;;) {
    const leases = await claim(t.pool, "drain", 60, 10);
    if (leases.length === 0) return n;
    for (const l of leases) {
      await executeTask(
        t.pool,
        e,
        l,
        { signal: new AbortController().signal, progress: () => undefined },
        { batchSize: 16, batchMaxBytes: 1 << 20 },
      );
      n++;
    }
  }
}

const rows = async (sql: string, args: unknown[] = []) => (await t.pool.query(sql, args)).rows;
const events = (kind: string, action?: string) =>
  rows(
    `SELECT kind, action, fingerprint, tenant_id, document_id::text, task_id::text, detail FROM anomaly_events WHERE kind = $1 AND ($2::text IS NULL OR action = $2) ORDER BY id`,
    [kind, action ?? null],
  );
const tasksOf = (documentId: string) =>
  rows(
    `SELECT task_id::text, version_number, task_type, status, max_attempts FROM index_tasks WHERE document_id = $1 ORDER BY task_id`,
    [documentId],
  );

/**
 * A local index space of another model (the worker makes its embedder from the row), so one
 * drain builds every tenant in its own active space.
 */
async function localSpace(name: string, model: string): Promise<number> {
  return (
    await rows(
      `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version) VALUES ($1, 'local', $2, 384, $3)
       ON CONFLICT (name) DO UPDATE SET model = EXCLUDED.model RETURNING id`,
      [name, model, CHUNKER_VERSION],
    )
  )[0].id;
}
const defaultSpace = async (): Promise<number> => (await rows(`SELECT indexwright_default_space() AS id`))[0].id;
/** The tenant's active space set by hand (a migration would have built its documents there first). */
const onSpace = (tenant: string, spaceId: number) =>
  t.pool.query(
    `INSERT INTO tenants (id, name, active_space_id) VALUES ($1, $1, $2) ON CONFLICT (id) DO UPDATE SET active_space_id = $2`,
    [tenant, spaceId],
  );

/** A published, indexed, searchable document. */
async function indexed(key: string, content: string) {
  const p = await pub(key, content);
  await drain();
  return p;
}

describe("findings and repairs", () => {
  it("UNSWITCHED_READY: a complete READY build of the business version left behind an unpinned pointer is switched, and search serves it", async () => {
    const v1 = await indexed("handbook", "# Handbook\n\nVacation requests go to the team lead.");
    await pub("handbook", "# Handbook\n\nVacation requests go through the zebrafish portal now.");
    // A pin holds the finished v2 build back (it stays READY); then the pin disappears without a
    // switch, as an unpin that only cleared the flag once did.
    await t.pool.query(
      `UPDATE search_pointers SET pinned = true, pinned_by = 'op', pinned_reason = 'hold' WHERE document_id = $1`,
      [v1.documentId],
    );
    await drain();
    expect(
      await rows(`SELECT version_number, status FROM index_versions WHERE document_id = $1 ORDER BY version_number`, [
        v1.documentId,
      ]),
    ).toEqual([
      { version_number: 1, status: "ACTIVE" },
      { version_number: 2, status: "READY" },
    ]);
    // While pinned this is drift on purpose, not a finding.
    expect((await ran()).counts.UNSWITCHED_READY.found).toBe(0);
    await t.pool.query(
      `UPDATE search_pointers SET pinned = false, pinned_by = NULL, pinned_reason = NULL WHERE document_id = $1`,
      [v1.documentId],
    );

    const q = { tenant: TENANT, query: "zebrafish portal", topK: 3, principals: [] };
    const before = await search(t.pool, embedder, q);
    expect(before.length).toBeGreaterThan(0);
    expect(new Set(before.map((h) => h.versionNumber))).toEqual(new Set([1]));

    const r = await ran();
    expect(r.counts.UNSWITCHED_READY).toMatchObject({ found: 1, recorded: 1, repaired: 1 });
    expect(
      await rows(
        `SELECT version_number, status, retired_at IS NOT NULL AS retired FROM index_versions WHERE document_id = $1 ORDER BY version_number`,
        [v1.documentId],
      ),
    ).toEqual([
      { version_number: 1, status: "RETIRED", retired: true },
      { version_number: 2, status: "ACTIVE", retired: false },
    ]);
    expect((await rows(`SELECT search_version, drifted FROM documents WHERE id = $1`, [v1.documentId]))[0]).toEqual({
      search_version: 2,
      drifted: false,
    });
    const hits = await search(t.pool, embedder, q);
    expect(hits[0]).toMatchObject({ documentKey: "handbook", versionNumber: 2 });
    expect(hits[0].text).toContain("zebrafish");
    expect((await events("UNSWITCHED_READY")).map((e) => e.action)).toEqual(["REPORTED", "REPAIRED"]);
    expect((await events("UNSWITCHED_READY", "REPAIRED"))[0].detail).toMatchObject({ fromVersion: 1, toVersion: 2 });
    // Nothing else to do: no stale drift is declared and no reindex queued for it.
    expect(r.counts.STALE_DRIFT.found).toBe(0);
    expect((await tasksOf(v1.documentId)).filter((x) => x.status === "PENDING")).toEqual([]);
  });

  it("UNSWITCHED_READY: a READY build whose stored chunks are fewer than expected is not switched", async () => {
    const v1 = await indexed("short", "# Short\n\nFirst text about llamas.");
    await pub("short", "# Short\n\nSecond text about alpacas.\n\n## More\n\nAnd a second section about vicunas.");
    await t.pool.query(`UPDATE search_pointers SET pinned = true WHERE document_id = $1`, [v1.documentId]);
    await drain();
    await t.pool.query(`UPDATE search_pointers SET pinned = false WHERE document_id = $1`, [v1.documentId]);
    const iv = (
      await rows(`SELECT id FROM index_versions WHERE document_id = $1 AND status = 'READY'`, [v1.documentId])
    )[0].id;
    await t.pool.query(
      `DELETE FROM chunks WHERE index_version_id = $1 AND ordinal = (SELECT max(ordinal) FROM chunks WHERE index_version_id = $1)`,
      [iv],
    );
    const r = await ran();
    expect(r.counts.UNSWITCHED_READY).toMatchObject({ found: 1, repaired: 0, deferred: 1 });
    expect((await rows(`SELECT search_version FROM documents WHERE id = $1`, [v1.documentId]))[0].search_version).toBe(
      1,
    );
    expect(await events("UNSWITCHED_READY", "REPAIRED")).toEqual([]);
  });

  it("UNSWITCHED_READY: a READY build in the tenant's active space over a pointer at that version in another space is switched; a READY build in another space never is", async () => {
    const pin = (documentId: string, pinned: boolean) =>
      t.pool.query(`UPDATE search_pointers SET pinned = $2 WHERE document_id = $1`, [documentId, pinned]);
    await onSpace(TENANT, await localSpace("retired", "retired-model"));
    const a = await indexed("a", "# A\n\nFirst text about herons.");
    const b = await indexed("b", "# B\n\nThe only text about egrets.");
    // a: v2 built in retired and held back by a pin (set after the publish, which clears pins).
    await pub("a", "# A\n\nSecond text about herons.");
    await pin(a.documentId, true);
    await drain();
    // The tenant on the default space; b's v1 rebuilt there, held back by a pin.
    await onSpace(TENANT, await defaultSpace());
    await pin(b.documentId, true);
    await reindex(t.pool, TENANT, "b", { subject: "test" }, 8);
    await drain();
    const state = async (documentId: string) =>
      rows(
        `SELECT iv.version_number, iv.status, s.name AS space, sp.index_version_id = iv.id AS serving
           FROM index_versions iv JOIN embedding_spaces s ON s.id = iv.space_id LEFT JOIN search_pointers sp ON sp.document_id = iv.document_id
          WHERE iv.document_id = $1 ORDER BY iv.created_at`,
        [documentId],
      );
    expect(await state(a.documentId)).toEqual([
      { version_number: 1, status: "ACTIVE", space: "retired", serving: true },
      { version_number: 2, status: "READY", space: "retired", serving: false },
    ]);
    expect(await state(b.documentId)).toEqual([
      { version_number: 1, status: "ACTIVE", space: "retired", serving: true },
      { version_number: 1, status: "READY", space: "local", serving: false },
    ]);
    await pin(a.documentId, false);
    await pin(b.documentId, false);

    const r = await ran();
    expect(r.counts.UNSWITCHED_READY).toMatchObject({ found: 1, repaired: 1 });
    expect((await events("UNSWITCHED_READY")).map((e) => [e.action, e.document_id])).toEqual([
      ["REPORTED", b.documentId],
      ["REPAIRED", b.documentId],
    ]);
    expect(await state(b.documentId)).toEqual([
      { version_number: 1, status: "RETIRED", space: "retired", serving: false },
      { version_number: 1, status: "ACTIVE", space: "local", serving: true },
    ]);
    // a's READY v2 is of a space search does not read: never switched to. What a serves is
    // outside the tenant's space too, so STALE_MODEL queues the rebuild that will switch.
    expect((await state(a.documentId)).map((v) => v.serving)).toEqual([true, false]);
    expect(r.counts.STALE_MODEL).toMatchObject({ found: 1, repaired: 1 });
    expect((await tasksOf(a.documentId)).map((x) => `${x.task_type}:v${x.version_number}:${x.status}`).sort()).toEqual([
      "INDEX:v1:SUCCEEDED",
      "INDEX:v2:SUCCEEDED",
      "REINDEX:v2:PENDING",
    ]);
  });

  it("UNSWITCHED_READY: the repair takes the tenant's space lock shared; while a switch holds it exclusive the repair waits (and gives up at lock_timeout), and the next pass makes it", async () => {
    const v1 = await indexed("locked", "# Locked\n\nFirst text about cranes.");
    await pub("locked", "# Locked\n\nSecond text about storks.");
    await t.pool.query(`UPDATE search_pointers SET pinned = true WHERE document_id = $1`, [v1.documentId]);
    await drain();
    await t.pool.query(`UPDATE search_pointers SET pinned = false WHERE document_id = $1`, [v1.documentId]);
    const switching = await t.pool.connect();
    try {
      await switching.query("BEGIN");
      await switching.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [SPACE_LOCK_NAMESPACE, TENANT]);
      const r = await ran();
      expect(r.counts.UNSWITCHED_READY).toMatchObject({ found: 1, repaired: 0, deferred: 1 });
      expect(
        (await rows(`SELECT search_version FROM documents WHERE id = $1`, [v1.documentId]))[0].search_version,
      ).toBe(1);
    } finally {
      await switching.query("ROLLBACK");
      switching.release();
    }
    expect((await ran()).counts.UNSWITCHED_READY).toMatchObject({ found: 1, repaired: 1 });
    expect((await rows(`SELECT search_version FROM documents WHERE id = $1`, [v1.documentId]))[0].search_version).toBe(
      2,
    );
  });

  it("EXPIRED_LEASE: reported when no claim took it over; with no attempts left it is made DEAD as a claim would", async () => {
    const a = await pub("lease-a", "# A\n\ntext a");
    const b = await pub("lease-b", "# B\n\ntext b");
    const c = await pub("lease-c", "# C\n\ntext c");
    const run = (taskId: string | null, attempts: number, max: number, secondsAgo: number) =>
      t.pool.query(
        `UPDATE index_tasks SET status = 'RUNNING', attempts = $2, max_attempts = $3, lease_owner = 'gone', lease_until = now() - make_interval(secs => $4) WHERE task_id = $1`,
        [taskId, attempts, max, secondsAgo],
      );
    await run(a.taskId, 3, 8, 600); // expired long ago, attempts left: report only
    await run(b.taskId, 2, 2, 600); // expired long ago, no attempts left: DEAD
    await run(c.taskId, 1, 8, 5); // within the grace: a claim may still take it
    const r = await ran();
    expect(r.counts.EXPIRED_LEASE).toMatchObject({ found: 2, recorded: 2, repaired: 1 });
    expect((await tasksOf(a.documentId))[0]).toMatchObject({ status: "RUNNING" });
    const dead = (
      await rows(`SELECT status, error_code, lease_until FROM index_tasks WHERE task_id = $1`, [b.taskId])
    )[0];
    expect(dead).toEqual({ status: "DEAD", error_code: "LEASE_ATTEMPTS_EXHAUSTED", lease_until: null });
    expect(
      await rows(
        `SELECT kind, actor, lease_attempt FROM task_events WHERE task_id = $1 AND kind = 'LEASE_EXPIRED_DEAD'`,
        [b.taskId],
      ),
    ).toEqual([{ kind: "LEASE_EXPIRED_DEAD", actor: "reconciler", lease_attempt: 2 }]);
    expect((await events("EXPIRED_LEASE")).map((e) => `${e.task_id}:${e.action}`)).toEqual([
      `${a.taskId}:REPORTED`,
      `${b.taskId}:REPORTED`,
      `${b.taskId}:REPAIRED`,
    ]);
    // The DEAD task now counts for the operator.
    expect(r.counts.DEAD_TASKS.found).toBe(1);

    // A still-open finding is not recorded again on the next pass.
    const r2 = await ran();
    expect(r2.counts.EXPIRED_LEASE).toMatchObject({ found: 1, recorded: 0, repaired: 0 });
    expect(await events("EXPIRED_LEASE", "REPORTED")).toHaveLength(2);
    // A new lease attempt that expires again is a new occurrence, recorded once more.
    await run(a.taskId, 4, 8, 600);
    expect((await ran()).counts.EXPIRED_LEASE.recorded).toBe(1);
    expect(await events("EXPIRED_LEASE", "REPORTED")).toHaveLength(3);
  });

  it("MISSING_TASK: a drifted live document whose business version has no task gets an INDEX task that the pipeline then indexes", async () => {
    const p = await pub("lost", "# Lost\n\nThe task row of this version went missing.");
    await t.pool.query(`DELETE FROM task_events WHERE task_id = $1`, [p.taskId]);
    await t.pool.query(`DELETE FROM index_tasks WHERE task_id = $1`, [p.taskId]);
    const r = await ran();
    expect(r.counts.MISSING_TASK).toMatchObject({ found: 1, recorded: 1, repaired: 1 });
    const tasks = await tasksOf(p.documentId);
    expect(tasks).toMatchObject([{ version_number: 1, task_type: "INDEX", status: "PENDING", max_attempts: 8 }]);
    expect(await rows(`SELECT kind, actor, detail FROM task_events WHERE task_id = $1`, [tasks[0].task_id])).toEqual([
      { kind: "CREATED", actor: "reconciler", detail: { versionNumber: 1, reason: "MISSING_TASK" } },
    ]);
    const repaired = (await events("MISSING_TASK", "REPAIRED"))[0];
    expect(repaired).toMatchObject({
      tenant_id: TENANT,
      document_id: p.documentId,
      detail: { enqueued: "INDEX", taskId: tasks[0].task_id },
    });
    expect(await drain()).toBe(1);
    expect(
      (await search(t.pool, embedder, { tenant: TENANT, query: "task row went missing", topK: 1, principals: [] }))[0],
    ).toMatchObject({ documentKey: "lost", versionNumber: 1 });
    expect((await ran()).counts.MISSING_TASK.found).toBe(0);
  });

  it("MISSING_TASK under a pin is reported, not repaired", async () => {
    const p = await indexed("pinned-missing", "# P\n\nv1");
    const v2 = await pub("pinned-missing", "# P\n\nv2");
    await t.pool.query(`UPDATE search_pointers SET pinned = true WHERE document_id = $1`, [p.documentId]);
    await t.pool.query(`DELETE FROM task_events WHERE task_id = $1`, [v2.taskId]);
    await t.pool.query(`DELETE FROM index_tasks WHERE task_id = $1`, [v2.taskId]);
    const r = await ran();
    expect(r.counts.MISSING_TASK).toMatchObject({ found: 1, repaired: 0 });
    expect((await tasksOf(p.documentId)).map((x) => x.version_number)).toEqual([1]);
  });

  it("STALE_DRIFT: old drift with only finished tasks is indexed again (REINDEX, since the INDEX row exists); young drift, pins and DEAD tasks are left alone", async () => {
    const stale = await indexed("stale", "# Stale\n\nfirst");
    const s2 = await pub("stale", "# Stale\n\nsecond");
    // v2's INDEX task ended without the pointer moving and its build is gone (e.g. collected).
    await t.pool.query(`UPDATE index_tasks SET status = 'SUCCEEDED', finished_at = now() WHERE task_id = $1`, [
      s2.taskId,
    ]);
    const young = await indexed("young", "# Young\n\nfirst");
    const y2 = await pub("young", "# Young\n\nsecond");
    await t.pool.query(`UPDATE index_tasks SET status = 'SUCCEEDED', finished_at = now() WHERE task_id = $1`, [
      y2.taskId,
    ]);
    const pinned = await indexed("pinned", "# Pinned\n\nfirst");
    const p2 = await pub("pinned", "# Pinned\n\nsecond");
    await t.pool.query(`UPDATE index_tasks SET status = 'SUCCEEDED', finished_at = now() WHERE task_id = $1`, [
      p2.taskId,
    ]);
    await t.pool.query(`UPDATE search_pointers SET pinned = true WHERE document_id = $1`, [pinned.documentId]);
    const dead = await indexed("dead", "# Dead\n\nfirst");
    const d2 = await pub("dead", "# Dead\n\nsecond");
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'PARSE_ERROR', finished_at = now() WHERE task_id = $1`,
      [d2.taskId],
    );
    // Everything but "young" was published 10 minutes ago.
    await t.pool.query(
      `UPDATE document_versions SET published_at = now() - interval '10 minutes' WHERE document_id = ANY($1::uuid[])`,
      [[stale.documentId, pinned.documentId, dead.documentId]],
    );

    const r = await ran();
    expect(r.counts.STALE_DRIFT).toMatchObject({ found: 1, repaired: 1 });
    expect((await events("STALE_DRIFT")).map((e) => [e.document_id, e.action])).toEqual([
      [stale.documentId, "REPORTED"],
      [stale.documentId, "REPAIRED"],
    ]);
    expect((await tasksOf(stale.documentId)).filter((x) => x.version_number === 2)).toMatchObject([
      { task_type: "INDEX", status: "SUCCEEDED" },
      { task_type: "REINDEX", status: "PENDING" },
    ]);
    for (const d of [young, pinned, dead])
      expect((await tasksOf(d.documentId)).filter((x) => x.task_type === "REINDEX")).toEqual([]);
    expect(r.counts.DEAD_TASKS.found).toBe(1);

    await drain();
    expect((await rows(`SELECT search_version, drifted FROM documents WHERE id = $1`, [stale.documentId]))[0]).toEqual({
      search_version: 2,
      drifted: false,
    });
    expect((await ran()).counts.STALE_DRIFT.found).toBe(0);
  });

  it("STALE_MODEL: a serving index from another space than the tenant's active one gets a REINDEX, and the rebuild serves search again", async () => {
    const retired = await localSpace("retired", "retired-model");
    await onSpace(TENANT, retired);
    const a = await pub("model-a", "# A\n\nPenguins waddle across the ice shelf.");
    const b = await pub("model-b", "# B\n\nOstriches sprint across the savanna.");
    await drain();
    // Both serve in the tenant's space: no finding.
    expect((await ran()).counts.STALE_MODEL.found).toBe(0);
    // The tenant back on the default space (by hand): what retired built serves nothing.
    await onSpace(TENANT, await defaultSpace());
    await t.pool.query(`UPDATE search_pointers SET pinned = true WHERE document_id = $1`, [b.documentId]);
    expect(await search(t.pool, embedder, { tenant: TENANT, query: "penguins ice", topK: 3, principals: [] })).toEqual(
      [],
    );

    const r = await ran();
    expect(r.counts.STALE_MODEL).toMatchObject({ found: 2, recorded: 2, repaired: 1 });
    expect((await tasksOf(a.documentId)).map((x) => `${x.task_type}:${x.status}`)).toEqual([
      "INDEX:SUCCEEDED",
      "REINDEX:PENDING",
    ]);
    expect((await tasksOf(b.documentId)).map((x) => `${x.task_type}:${x.status}`)).toEqual(["INDEX:SUCCEEDED"]);
    expect((await events("STALE_MODEL", "REPORTED")).find((e) => e.document_id === b.documentId)!.detail).toMatchObject(
      { pinned: true, model: "retired-model", spaceId: retired, activeSpaceId: await defaultSpace() },
    );

    // While the REINDEX is queued nothing more is enqueued.
    expect((await ran()).counts.STALE_MODEL).toMatchObject({ found: 2, repaired: 0, recorded: 0 });
    await drain();
    expect(
      (await search(t.pool, embedder, { tenant: TENANT, query: "penguins ice", topK: 3, principals: [] }))[0],
    ).toMatchObject({ documentKey: "model-a" });
    expect((await ran()).counts.STALE_MODEL).toMatchObject({ found: 1, repaired: 0 });
  });

  it("STALE_MODEL and the overview's otherEmbeddingSpace judge each document by its own tenant's active space (two tenants on different spaces)", async () => {
    const retired = await localSpace("retired", "retired-model");
    const local = await defaultSpace();
    // rc2 built "old" in the default space, then moved to retired and built "new" there; rc is on
    // the default space throughout. Every version is ACTIVE, and only rc2's "old" serves nothing.
    await onSpace("rc2", local);
    const old = await publish(t.pool, {
      tenant: "rc2",
      key: "old",
      title: "old",
      contentType: "text/markdown",
      content: Buffer.from("# Old\n\nBuilt before the tenant moved."),
      acl: [],
      abstract: null,
      overview: null,
      actor: "test",
      maxAttempts: 8,
    });
    await drain();
    await onSpace("rc2", retired);
    const fresh = await publish(t.pool, {
      tenant: "rc2",
      key: "new",
      title: "new",
      contentType: "text/markdown",
      content: Buffer.from("# New\n\nBuilt after the tenant moved."),
      acl: [],
      abstract: null,
      overview: null,
      actor: "test",
      maxAttempts: 8,
    });
    const mine = await indexed("mine", "# Mine\n\nBuilt in the default space, where rc is.");
    await drain();
    expect(
      await rows(
        `SELECT d.tenant_id, d.key, iv.status, iv.space_id FROM index_versions iv JOIN documents d ON d.id = iv.document_id ORDER BY d.tenant_id, d.key`,
      ),
    ).toEqual([
      { tenant_id: "rc", key: "mine", status: "ACTIVE", space_id: local },
      { tenant_id: "rc2", key: "new", status: "ACTIVE", space_id: retired },
      { tenant_id: "rc2", key: "old", status: "ACTIVE", space_id: local },
    ]);
    const other = async (tenants?: string[]) =>
      (await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20, tenants })).otherEmbeddingSpace;
    expect(await other()).toEqual({ count: 1, model: null, dimensions: null });
    expect(await other([TENANT])).toMatchObject({ count: 0, model: embedder.model, dimensions: 384 });
    expect(await other(["rc2"])).toEqual({ count: 1, model: "retired-model", dimensions: 384 });

    const r = await ran();
    expect(r.counts.STALE_MODEL).toMatchObject({ found: 1, recorded: 1, repaired: 1 });
    const [found] = await events("STALE_MODEL", "REPORTED");
    expect(found).toMatchObject({ tenant_id: "rc2", document_id: old.documentId });
    expect(found.detail).toMatchObject({
      model: embedder.model,
      spaceId: local,
      activeSpaceId: retired,
      activeModel: "retired-model",
    });
    expect((await tasksOf(old.documentId)).map((x) => `${x.task_type}:${x.status}`)).toEqual([
      "INDEX:SUCCEEDED",
      "REINDEX:PENDING",
    ]);
    for (const d of [fresh.documentId, mine.documentId])
      expect((await tasksOf(d)).map((x) => `${x.task_type}:${x.status}`)).toEqual(["INDEX:SUCCEEDED"]);
    // The rebuild goes to rc2's space; then nothing is outside anyone's.
    await drain();
    expect(await other()).toEqual({ count: 0, model: null, dimensions: null });
    expect((await ran()).counts.STALE_MODEL.found).toBe(0);
    expect(
      (
        await rows(
          `SELECT iv.space_id FROM search_pointers sp JOIN index_versions iv ON iv.id = sp.index_version_id WHERE sp.document_id = $1`,
          [old.documentId],
        )
      )[0].space_id,
    ).toBe(retired);
  });

  it("STALE_MODEL: an older build an operator's reindex replaced does not hold the rebuild back; a newest build that is DEAD does", async () => {
    await onSpace(TENANT, await localSpace("retired", "retired-model"));
    const healed = await pub("healed", "# Healed\n\nPenguins waddle across the ice shelf.");
    const dead = await pub("dead", "# Dead\n\nOstriches sprint across the savanna.");
    // healed: its INDEX was cancelled, then an operator's reindex built the version (old space).
    await t.pool.query(
      `UPDATE index_tasks SET status = 'CANCELLED', error_code = 'OPERATOR_CANCELLED', finished_at = now() WHERE task_id = $1`,
      [healed.taskId],
    );
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type) VALUES ($1, $2, 1, 'REINDEX')`,
      [TENANT, healed.documentId],
    );
    await drain();
    await onSpace(TENANT, await defaultSpace());
    // dead: built, then a reindex of it died; the operator has it.
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, error_code, finished_at) VALUES ($1, $2, 1, 'REINDEX', 'DEAD', 'PARSE_ERROR', now())`,
      [TENANT, dead.documentId],
    );
    expect((await tasksOf(healed.documentId)).map((x) => `${x.task_type}:${x.status}`)).toEqual([
      "INDEX:CANCELLED",
      "REINDEX:SUCCEEDED",
    ]);
    expect((await tasksOf(dead.documentId)).map((x) => `${x.task_type}:${x.status}`)).toEqual([
      "INDEX:SUCCEEDED",
      "REINDEX:DEAD",
    ]);

    expect((await ran()).counts.STALE_MODEL).toMatchObject({ found: 2, repaired: 1, deferred: 1 });
    expect((await tasksOf(healed.documentId)).map((x) => `${x.task_type}:${x.status}`)).toEqual([
      "INDEX:CANCELLED",
      "REINDEX:PENDING",
    ]);
    expect((await tasksOf(dead.documentId)).map((x) => `${x.task_type}:${x.status}`)).toEqual([
      "INDEX:SUCCEEDED",
      "REINDEX:DEAD",
    ]);
    await drain();
    expect(
      (await search(t.pool, embedder, { tenant: TENANT, query: "penguins ice", topK: 3, principals: [] }))[0],
    ).toMatchObject({ documentKey: "healed" });
  });

  it("ORPHANED_CHUNKS: a BUILDING version of a deleted document is handed to GC; one GC is overdue on is reported; a fresh retired one is not a finding", async () => {
    const a = await indexed("gone-a", "# Gone A\n\ntext");
    const b = await indexed("gone-b", "# Gone B\n\ntext");
    const c = await indexed("gone-c", "# Gone C\n\ntext");
    for (const k of ["gone-a", "gone-b", "gone-c"]) await requestDelete(t.pool, TENANT, k, "test", 8);
    await drain();
    expect(await rows(`SELECT DISTINCT status FROM index_versions`)).toEqual([{ status: "RETIRED" }]);
    await t.pool.query(
      `UPDATE index_versions SET status = 'BUILDING', retired_at = NULL, created_at = now() - interval '30 minutes' WHERE document_id = $1`,
      [a.documentId],
    );
    await t.pool.query(`UPDATE index_versions SET retired_at = now() - interval '3 hours' WHERE document_id = $1`, [
      b.documentId,
    ]);

    const r = await ran();
    expect(r.counts.ORPHANED_CHUNKS).toMatchObject({ found: 2, recorded: 2, repaired: 1 });
    const ivA = (
      await rows(`SELECT status, retired_at = created_at AS kept_clock FROM index_versions WHERE document_id = $1`, [
        a.documentId,
      ])
    )[0];
    expect(ivA).toEqual({ status: "RETIRED", kept_clock: true });
    expect((await events("ORPHANED_CHUNKS", "REPORTED")).map((e) => e.document_id).sort()).toEqual(
      [a.documentId, b.documentId].sort(),
    );
    expect((await events("ORPHANED_CHUNKS", "REPAIRED")).map((e) => e.document_id)).toEqual([a.documentId]);
    expect((await events("ORPHANED_CHUNKS")).some((e) => e.document_id === c.documentId)).toBe(false);
    // Chunks are never deleted by the reconciler.
    expect(
      Number((await rows(`SELECT count(*) AS n FROM chunks WHERE document_id = $1`, [a.documentId]))[0].n),
    ).toBeGreaterThan(0);
  });

  it("DEAD_TASKS: a count for the operator, recorded only when it changes; obsolete DEAD tasks do not count", async () => {
    const a = await pub("dead-a", "# A\n\nx");
    const b = await pub("dead-b", "# B\n\ny");
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'PARSE_ERROR', finished_at = now() WHERE task_id = $1`,
      [a.taskId],
    );
    let r = await ran();
    expect(r.counts.DEAD_TASKS).toMatchObject({ found: 1, recorded: 1, repaired: 0 });
    r = await ran();
    expect(r.counts.DEAD_TASKS).toMatchObject({ found: 1, recorded: 0 });
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'EMPTY_DOCUMENT', finished_at = now() WHERE task_id = $1`,
      [b.taskId],
    );
    // A DEAD INDEX of a version that is no longer the business version is obsolete.
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', error_code = 'PARSE_ERROR' WHERE task_id = $1`, [
      (await pub("dead-a", "# A\n\nnewer")).taskId,
    ]);
    r = await ran();
    expect(r.counts.DEAD_TASKS).toMatchObject({ found: 2, recorded: 1 });
    expect((await events("DEAD_TASKS")).map((e) => e.detail)).toEqual([
      { count: 1, previous: 0, byErrorCode: { PARSE_ERROR: 1 } },
      { count: 2, previous: 1, byErrorCode: { PARSE_ERROR: 1, EMPTY_DOCUMENT: 1 } },
    ]);
    expect(await rows(`SELECT status FROM index_tasks WHERE status = 'DEAD' ORDER BY task_id`)).toHaveLength(3);
  });
});

describe("caps, leadership, records", () => {
  /** Published documents whose task row was lost. */
  async function lostTasks(n: number, prefix = "lost") {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const p = await pub(`${prefix}-${i}`, `# ${prefix} ${i}\n\ntext ${i}`);
      await t.pool.query(`DELETE FROM task_events WHERE task_id = $1`, [p.taskId]);
      await t.pool.query(`DELETE FROM index_tasks WHERE task_id = $1`, [p.taskId]);
      ids.push(p.documentId);
    }
    return ids;
  }
  const queued = async () =>
    Number((await rows(`SELECT count(*) AS n FROM index_tasks WHERE status = 'PENDING'`))[0].n);

  it("repairs at most the cap per kind per pass and records the rest as one SKIPPED_CAP row", async () => {
    await lostTasks(5);
    const cfg = { config: { RECONCILE_MAX_REPAIRS: 2 } };
    let r = await ran(cfg);
    expect(r.counts.MISSING_TASK).toMatchObject({ found: 5, recorded: 5, repaired: 2, skippedCap: 3 });
    expect(await queued()).toBe(2);
    expect((await events("MISSING_TASK", "SKIPPED_CAP")).map((e) => e.detail)).toEqual([{ skipped: 3, cap: 2 }]);
    r = await ran(cfg);
    expect(r.counts.MISSING_TASK).toMatchObject({ found: 3, recorded: 0, repaired: 2, skippedCap: 1 });
    r = await ran(cfg);
    expect(r.counts.MISSING_TASK).toMatchObject({ found: 1, repaired: 1, skippedCap: 0 });
    expect(await queued()).toBe(5);
    expect(await events("MISSING_TASK", "REPAIRED")).toHaveLength(5);
    expect(await events("MISSING_TASK", "REPORTED")).toHaveLength(5);
    // Running totals (what /api/metrics exports) add up across passes.
    expect(r.totals.MISSING_TASK).toEqual({ REPORTED: 5, REPAIRED: 5, SKIPPED_CAP: 4 });
    // A cap of 0 reports only.
    await lostTasks(1, "report-only");
    expect((await ran({ config: { RECONCILE_MAX_REPAIRS: 0 } })).counts.MISSING_TASK).toMatchObject({
      found: 1,
      repaired: 0,
      skippedCap: 1,
    });
  });

  it("skips a document another transaction holds and repairs it on the next pass", async () => {
    const [doc] = await lostTasks(1);
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM documents WHERE id = $1 FOR UPDATE`, [doc]);
      if (t.real) {
        const r = await ran();
        expect(r.counts.MISSING_TASK).toMatchObject({ found: 1, repaired: 0, deferred: 1 });
        expect(await queued()).toBe(0);
      }
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    expect((await ran()).counts.MISSING_TASK).toMatchObject({ found: 1, repaired: 1 });
  });

  it("a pass runs only where the advisory lock is won; the interval keeps the fleet at one pass per interval", async () => {
    await lostTasks(1);
    if (t.real) {
      // Another process is mid-pass: this one does nothing at all.
      const other = new pg.Client({ connectionString: t.url });
      await other.connect();
      await other.query("BEGIN");
      await other.query(`SELECT pg_advisory_xact_lock($1::bigint)`, [RECONCILER_LOCK_KEY]);
      expect(await pass()).toEqual({ ran: false, reason: "not_leader" });
      await other.query("ROLLBACK");
      await other.end();
      expect(await rows(`SELECT * FROM reconcile_passes`)).toEqual([]);
      expect(await rows(`SELECT * FROM anomaly_events`)).toEqual([]);
    }
    // Two workers' ticks at the same moment (no force): exactly one pass acts.
    const both = await Promise.all([pass({ force: false, actor: "w1" }), pass({ force: false, actor: "w2" })]);
    expect(both.filter((r) => r.ran)).toHaveLength(1);
    expect(both.filter((r) => !r.ran).map((r) => (r.ran ? null : r.reason))[0]).toMatch(/^(not_leader|not_due)$/);
    expect(await rows(`SELECT actor FROM reconcile_passes`)).toHaveLength(1);
    expect(await events("MISSING_TASK", "REPAIRED")).toHaveLength(1);
    expect(await queued()).toBe(1);
    // Within the interval nobody runs another.
    expect(await pass({ force: false })).toEqual({ ran: false, reason: "not_due" });
    // The worker's tick waits one interval after it first sees a pool, then takes part.
    await t.pool.query(`DELETE FROM reconcile_passes`);
    const tick = { actor: "w3", maxAttempts: 8, retentionHours: 1 };
    const prev = process.env.RECONCILE_INTERVAL_SECONDS;
    process.env.RECONCILE_INTERVAL_SECONDS = "0.5";
    try {
      expect(await reconcileTick(t.pool, tick)).toBeNull();
      await new Promise((r) => setTimeout(r, 600));
      expect(await reconcileTick(t.pool, tick)).toMatchObject({ ran: true });
      process.env.RECONCILE_INTERVAL_SECONDS = "0";
      expect(await reconcileTick(t.pool, tick)).toBeNull();
    } finally {
      if (prev === undefined) delete process.env.RECONCILE_INTERVAL_SECONDS;
      else process.env.RECONCILE_INTERVAL_SECONDS = prev;
    }
  });

  it("every kind is in the pass counts; the overview API and /api/metrics report the newest pass", async () => {
    // Empty state: no pass yet.
    const before = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20 });
    expect(before.reconciler!.lastPass).toBeNull();
    expect(before.reconciler!.kinds.map((k) => k.kind)).toEqual([...ANOMALY_KINDS]);
    expect(before.reconciler!.kinds.every((k) => k.found === 0 && k.repaired === 0)).toBe(true);

    await lostTasks(3);
    const d = await pub("dead-one", "# D\n\nx");
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'PARSE_ERROR', finished_at = now() WHERE task_id = $1`,
      [d.taskId],
    );
    const r = await ran({ config: { RECONCILE_MAX_REPAIRS: 2 } });
    expect(Object.keys(r.counts).sort()).toEqual([...ANOMALY_KINDS].sort());

    const { GET } = await import("../../app/api/v1/overview/route");
    const res = await GET(
      new Request("http://localhost/api/v1/overview", { headers: { authorization: `Bearer ${TOKEN}` } }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.reconciler.lastPass).toMatchObject({ id: r.passId, actor: "test-worker" });
    const byKind = Object.fromEntries(body.reconciler.kinds.map((k: { kind: string }) => [k.kind, k]));
    expect(byKind.MISSING_TASK).toEqual({ kind: "MISSING_TASK", found: 3, repaired: 2, skippedCap: 1 });
    expect(byKind.DEAD_TASKS).toEqual({ kind: "DEAD_TASKS", found: 1, repaired: 0, skippedCap: 0 });
    // The dashboard's schema reads it.
    const parsed = overviewSchema.parse(body);
    expect(parsed.reconciler.lastPass?.id).toBe(r.passId);
    expect(parsed.reconciler.kinds.find((k) => k.kind === "MISSING_TASK")).toEqual({
      kind: "MISSING_TASK",
      found: 3,
      repaired: 2,
      skippedCap: 1,
    });
    expect(overviewSchema.parse({ ...body, reconciler: undefined }).reconciler).toEqual({ lastPass: null, kinds: [] });

    const { GET: metrics } = await import("../../app/api/metrics/route");
    const text = await (
      await metrics(new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }), {
        params: Promise.resolve({}),
      })
    ).text();
    expect(text).toMatch(/^indexwright_reconcile_actions_total\{kind="MISSING_TASK",action="REPAIRED"\} 2$/m);
    expect(text).toMatch(/^indexwright_reconcile_actions_total\{kind="MISSING_TASK",action="SKIPPED_CAP"\} 1$/m);
    expect(text).toMatch(/^indexwright_reconcile_findings\{kind="DEAD_TASKS"\} 1$/m);
    expect(text).toMatch(/^indexwright_reconcile_last_pass_age_seconds \d/m);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
  });

  it("anomaly rows carry the pass, the subject and the detail", async () => {
    const [doc] = await lostTasks(1);
    const r = await ran();
    const e = await rows(
      `SELECT pass_id::text, kind, action, tenant_id, document_id::text, detail FROM anomaly_events ORDER BY id`,
    );
    expect(e).toEqual([
      {
        pass_id: r.passId,
        kind: "MISSING_TASK",
        action: "REPORTED",
        tenant_id: TENANT,
        document_id: doc,
        detail: { versionNumber: 1, pinned: false, versionMissing: false },
      },
      {
        pass_id: r.passId,
        kind: "MISSING_TASK",
        action: "REPAIRED",
        tenant_id: TENANT,
        document_id: doc,
        detail: expect.objectContaining({ enqueued: "INDEX", versionNumber: 1 }),
      },
    ]);
    const p = (
      await rows(
        `SELECT actor, finished_at >= started_at AS ordered, counts->'MISSING_TASK'->>'repaired' AS repaired FROM reconcile_passes WHERE id = $1`,
        [r.passId],
      )
    )[0];
    expect(p).toEqual({ actor: "test-worker", ordered: true, repaired: "1" });
  });

  it("a business version whose version row is gone is reported, never enqueued", async () => {
    await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1)`, [TENANT]);
    await t.pool.query(
      `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, 'no-version', 'T', 1)`,
      [randomUUID(), TENANT],
    );
    const r = await ran();
    expect(r.counts.MISSING_TASK).toMatchObject({ found: 1, repaired: 0 });
    expect((await events("MISSING_TASK", "REPORTED"))[0].detail).toMatchObject({ versionMissing: true });
    expect(await rows(`SELECT * FROM index_tasks`)).toEqual([]);
  });
});
