import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { publish } from "../../lib/documents/publish";
import { requestDelete } from "../../lib/documents/repository";
import { pauseQueue } from "../../lib/operations/repository";
import { claim } from "../../lib/queue/engine";
import { executeTasks } from "../../lib/pipeline/run";
import { LocalEmbedder } from "../../lib/embedding";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import { actOnMigration, getMigration, startMigration } from "../../lib/spaces/repository";
import { advanceMigrations } from "../../lib/spaces/maintenance";
import { registerEnvironmentSpace } from "../../lib/spaces/registry";
import { loadConfig } from "../../lib/config";

// Reproductions of what the model-based test found when migrations joined its commands
// (test/model/harness.ts; docs/testing.md, "Model-based test"). Each test is the shrunk sequence,
// driven through the same library calls, with the contract it breaks as its assertion.

const TENANT = "seams";
const op = { subject: "user:ops@example.com" };
const MAX_ATTEMPTS = 3;
let t: TestDb;
const spaces = new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });

const publishDoc = (key: string, body: string) =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(body),
    acl: [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: MAX_ATTEMPTS,
  });

/** Claims one task (the migration claim for MIGRATE work) and runs it as a worker slot of one. */
async function runOne(migrate = false): Promise<{ type: string; status: string } | null> {
  const [lease] = await claim(t.pool, "w", 60, 1, migrate ? { migrate: true } : {});
  if (!lease) return null;
  const [r] = await executeTasks(
    t.pool,
    spaces,
    [{ lease, hooks: { signal: new AbortController().signal, progress: () => undefined } }],
    { batchSize: 8, batchMaxBytes: 1 << 20 },
  );
  return { type: lease.taskType, status: r.status };
}

const pointers = async () =>
  (
    await t.pool.query<{ kind: string; version: number; iv_space: string; iv_status: string }>(
      `SELECT 'search' AS kind, sp.version_number AS version, s.name AS iv_space, iv.status AS iv_status
         FROM search_pointers sp JOIN index_versions iv ON iv.id = sp.index_version_id JOIN embedding_spaces s ON s.id = iv.space_id
        WHERE sp.tenant_id = $1
       UNION ALL
       SELECT 'shadow in ' || ps.name, p.version_number, s.name, iv.status
         FROM space_pointers p JOIN index_versions iv ON iv.id = p.index_version_id
         JOIN embedding_spaces s ON s.id = iv.space_id JOIN embedding_spaces ps ON ps.id = p.space_id
        WHERE p.tenant_id = $1
        ORDER BY 1`,
      [TENANT],
    )
  ).rows;
/** ACTIVE index versions of the tenant that neither a search pointer nor a shadow pointer names. */
const activeWithoutPointer = async () =>
  (
    await t.pool.query<{ version: number; space: string }>(
      `SELECT iv.version_number AS version, s.name AS space FROM index_versions iv JOIN embedding_spaces s ON s.id = iv.space_id
        WHERE iv.tenant_id = $1 AND iv.status = 'ACTIVE'
          AND NOT EXISTS (SELECT 1 FROM search_pointers p WHERE p.index_version_id = iv.id)
          AND NOT EXISTS (SELECT 1 FROM space_pointers p WHERE p.index_version_id = iv.id)`,
      [TENANT],
    )
  ).rows;
const activeSpace = async () =>
  (
    await t.pool.query<{ name: string }>(
      `SELECT s.name FROM tenants t JOIN embedding_spaces s ON s.id = t.active_space_id WHERE t.id = $1`,
      [TENANT],
    )
  ).rows[0]?.name;

beforeAll(async () => {
  t = await createTestDb();
  await t.pool.query(
    `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
     VALUES ('local-256', 'local', 'indexwright-local-hash-v1', 256, 'md-heading-v2')`,
  );
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  // Each test starts from an empty tenant on the default space, with the candidate unindexed.
  await t.pool.query(
    `DELETE FROM chunks; DELETE FROM chunk_vectors; DELETE FROM space_pointers; DELETE FROM search_pointers; DELETE FROM index_versions;
     DELETE FROM task_events; DELETE FROM index_tasks; DELETE FROM document_versions; DELETE FROM documents; DELETE FROM space_migrations;
     DELETE FROM tenants; DELETE FROM task_pauses; DELETE FROM audit_log;
     UPDATE embedding_spaces SET is_default = false WHERE name <> 'local'; UPDATE embedding_spaces SET is_default = true WHERE name = 'local'`,
  );
});

describe("index-space migrations meet the rest of the system", () => {
  // docs/index-spaces.md: MIGRATE work is "paused by pausing the tenant or the MIGRATE type"; the
  // API accepts taskType MIGRATE (TASK_TYPES), but task_pauses_type_check allows INDEX, REINDEX and
  // DELETE only, so the pause fails with an unclassified error (a 500).
  it("pausing the MIGRATE task type is accepted", async () => {
    const r = await pauseQueue(t.pool, { taskType: "MIGRATE" }, op, "hold the migration", null).catch((e: Error) => e);
    expect(r instanceof Error ? r.message : null).toBeNull();
    expect(r).toMatchObject({ taskType: "MIGRATE" });
  });

  // Model test: publish(k1), startMigration(other space), workBatch, providerFails(3),
  // publish(k1, a second version), then settle: the second version's build dies, search keeps
  // serving v1, and the shadow never gets v1: the publish superseded the MIGRATE of v1 (publish
  // supersedes every older task type, TASK_TYPES, MIGRATE included), though v1 is what search
  // still serves. The migration stays at 0 of 1 with nothing queued, failed or retryable
  // (a SUPERSEDED task cannot be retried), and every switch is refused.
  it("a publish whose build fails leaves the version search still serves to its MIGRATE", async () => {
    await publishDoc("k1", "# Handbook\n\nApple rule: returns are accepted within thirty days.");
    expect(await runOne()).toEqual({ type: "INDEX", status: "fulfilled" });
    const m = await startMigration(t.pool, op, TENANT, { space: "local-256" }, MAX_ATTEMPTS);
    // v2 cannot be indexed (no text): its INDEX dies at once with EMPTY_DOCUMENT; v1 keeps serving.
    await publishDoc("k1", "   \n\n");
    expect(await runOne()).toEqual({ type: "INDEX", status: "rejected" });
    const { rows: v1 } = await t.pool.query(
      `SELECT status FROM index_tasks WHERE tenant_id = $1 AND task_type = 'MIGRATE' AND version_number = 1`,
      [TENANT],
    );
    // Drain the migration work: the shadow must come to serve v1, as search does.
    while (await runOne(true));
    const view = await getMigration(t.pool, TENANT, m.id);
    expect(
      { built: view.documents.built, total: view.documents.total },
      `the MIGRATE of v1 is ${v1[0]?.status} after the publish`,
    ).toEqual({ built: 1, total: 1 });
  });

  // Model test: publish(k1), work, startMigration(other space, autoSwitch), delete(k1),
  // advanceMigrations: coverage counts live documents only, so the migration is READY and switches
  // while the deleted document's DELETE has not run yet. Its search pointer stays on the old
  // space's version (decision 039 §2: search_pointers holds the active space's pointers only),
  // copied as the previous space's shadow pointer; a switch-back then retires that version with
  // the candidate's shadow, while the search pointer still names it. And, against the working
  // tree's fix that drops such pointers before the swap (model test: publish(k1),
  // startMigration, settle, delete(k1), advanceMigrations, switch): dropping the search pointer
  // drops the shadow pointer too (the trigger), but the shadow's index version stays ACTIVE with
  // no pointer naming it (until the DELETE runs; for good if it is DEAD).
  it.each([
    ["before the document was built in the candidate", false],
    ["after the document was built in the candidate", true],
  ])("a switch while a delete is pending (%s) leaves nothing behind", async (_, withShadow) => {
    await publishDoc("k1", "# Handbook\n\nApple rule: returns are accepted within thirty days.");
    expect(await runOne()).toEqual({ type: "INDEX", status: "fulfilled" });
    const m = await startMigration(t.pool, op, TENANT, { space: "local-256" }, MAX_ATTEMPTS);
    if (withShadow) expect(await runOne(true)).toEqual({ type: "MIGRATE", status: "fulfilled" });
    await requestDelete(t.pool, TENANT, "k1", op.subject, MAX_ATTEMPTS);
    expect((await advanceMigrations(t.pool, "test", { indexMemoryMb: 64, parallelWorkers: 0 })).ready).toEqual([m.id]);
    await actOnMigration(t.pool, op, TENANT, m.id, "switch", null);
    expect(await activeSpace()).toBe("local-256");
    const afterSwitch = await pointers();
    const orphansAfterSwitch = await activeWithoutPointer();
    await actOnMigration(t.pool, op, TENANT, m.id, "switch-back", null);
    const afterBack = await pointers();
    expect({ afterSwitch, afterBack, orphansAfterSwitch, orphansAfterBack: await activeWithoutPointer() }).toEqual({
      // Whatever else it keeps, no search pointer outside the tenant's active space...
      afterSwitch: afterSwitch.filter((p) => !(p.kind === "search" && p.iv_space !== "local-256")),
      // ...none naming a RETIRED index version...
      afterBack: afterBack.filter((p) => !(p.kind === "search" && p.iv_status !== "ACTIVE")),
      // ...and no ACTIVE index version that no pointer names (ACTIVE means served, in some space).
      orphansAfterSwitch: [],
      orphansAfterBack: [],
    });
  });

  // A tenant whose search pointers name versions of another space than its active one (moved by
  // hand, or upgraded from before index spaces with versions in two spaces: the reconciler and the
  // document state know this state) migrates to that space. The candidate is built (reusing the
  // vectors there), the switch saves the active pointers as the previous space's shadow pointers
  // as they are, so the previous space's shadow names versions of the candidate space: decision
  // 039 §7 says the previous space "keeps following the active pointers, so it is never behind",
  // yet every switch-back is refused (MIGRATION_NOT_READY, "not verified") until each such
  // document is published again.
  it("after a switch from a tenant with pointers in another space, a switch-back is possible", async () => {
    await publishDoc("k1", "# Handbook\n\nApple rule: returns are accepted within thirty days.");
    expect(await runOne()).toEqual({ type: "INDEX", status: "fulfilled" });
    await t.pool.query(
      `UPDATE tenants SET active_space_id = (SELECT id FROM embedding_spaces WHERE name = 'local-256') WHERE id = $1`,
      [TENANT],
    );
    const m = await startMigration(t.pool, op, TENANT, { space: "local" }, MAX_ATTEMPTS);
    while (await runOne(true));
    await advanceMigrations(t.pool, "test", { indexMemoryMb: 64, parallelWorkers: 0 });
    await actOnMigration(t.pool, op, TENANT, m.id, "switch", null);
    const afterSwitch = await pointers();
    expect(afterSwitch.filter((p) => p.kind === "shadow in local-256" && p.iv_space !== "local-256")).toEqual([]);
    // The version the pointer named before (of the candidate space, not kept as the previous
    // space's) is no longer served by anything: it must not stay ACTIVE, which nothing collects.
    expect(await activeWithoutPointer()).toEqual([]);
    // The switch queued what the previous space lacked; once built there, it serves it again.
    while (await runOne(true));
    const back = await actOnMigration(t.pool, op, TENANT, m.id, "switch-back", null).catch((e: Error) => e);
    expect(back instanceof Error ? back.message : back.state).toBe("SWITCHED_BACK");
  });

  // Found by the chaos run (a worker "exited on its own" at start): every worker registers the
  // environment's space at start (worker/main.ts), and one nothing loads gets its HNSW index there
  // with CREATE INDEX IF NOT EXISTS after the registration's transaction, outside its lock. Workers
  // starting together with new settings race on it; IF NOT EXISTS does not hold against a
  // concurrent creation, and the losers fail their start (exit 1) with a duplicate key on pg_class.
  it("workers starting at once with new embedding settings all start", async () => {
    const failures: string[] = [];
    for (const dims of [128, 130, 132, 134, 136]) {
      const cfg = loadConfig({ EMBEDDING_DIMENSIONS: String(dims) });
      const starts = await Promise.allSettled(Array.from({ length: 4 }, () => registerEnvironmentSpace(t.pool, cfg)));
      for (const r of starts) if (r.status === "rejected") failures.push(`${dims}: ${(r.reason as Error).message}`);
    }
    expect(failures).toEqual([]);
  });

  // Every path that queues a task writes the configured budget (MAX_ATTEMPTS), as the model test
  // found for DELETE before; a MIGRATE queued by the pointer trigger (indexwright_queue_migrate)
  // takes the column default (8) instead, and one it revives gets 8 more attempts.
  it("a MIGRATE queued by a pointer move has the configured attempt budget", async () => {
    await publishDoc("k1", "# Handbook\n\nApple rule: returns are accepted within thirty days.");
    await startMigration(t.pool, op, TENANT, { space: "local-256" }, MAX_ATTEMPTS);
    // The first build's switch moves the pointer: the trigger queues the MIGRATE of v1.
    expect(await runOne()).toEqual({ type: "INDEX", status: "fulfilled" });
    const { rows } = await t.pool.query(
      `SELECT attempts, max_attempts FROM index_tasks WHERE tenant_id = $1 AND task_type = 'MIGRATE'`,
      [TENANT],
    );
    expect(rows).toEqual([{ attempts: 0, max_attempts: MAX_ATTEMPTS }]);
  });
});
