import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { requestDelete } from "../../lib/documents/repository";
import { getMigration, startMigration } from "../../lib/spaces/repository";
import { advanceMigrations, pgDb } from "../../lib/spaces/maintenance";
import { switchBackIn, switchIn } from "../../lib/spaces/migrations";
import { hasSpaceIndex } from "../../lib/spaces/indexes";
import * as qsql from "../../lib/queue/sql";
import * as ssql from "../../lib/spaces/sql";

// A switch holds the tenant's space lock exclusive and writes rows (shadow pointers, MIGRATE tasks)
// whose foreign keys take KEY SHARE on the documents; a worker's switch holds a document row and
// waits for the space lock shared. Document rows are locked FOR NO KEY UPDATE, which KEY SHARE
// does not wait for, so the two serialise instead of deadlocking (docs/architecture.md, lock order).

const T = "dl";
let t: TestDb;
let migrationId = "";

const pub = (key: string, text: string) =>
  publish(t.pool, {
    tenant: T,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(`# ${key}\n\n${text}`),
    acl: [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: 8,
  });

beforeAll(async () => {
  t = await createTestDb();
  await t.pool.query(
    `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
     VALUES ('local-256', 'local', 'indexwright-local-hash-v1', 256, 'md-heading-v2')`,
  );
  const w = testWorker(t, "dl-w");
  await w.start();
  await pub("a", "Alpha about cranes.");
  await pub("b", "Beta about boats.");
  await pub("c", "Gamma about kites.");
  await waitFor(async () => {
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM search_pointers WHERE tenant_id = $1`, [T]);
    return rows[0].n === 3;
  });
  const m = await startMigration(t.pool, { subject: "user:op" }, T, { space: "local-256" }, 8);
  migrationId = m.id;
  await waitFor(async () => {
    const v = await getMigration(t.pool, T, m.id);
    return v.documents.built === v.documents.total;
  });
  await advanceMigrations(t.pool, "test", { indexMemoryMb: 64, parallelWorkers: 0 });
  await w.stop(5_000);
});
afterAll(async () => t?.close());

describe("a switch against a worker's switch of one of the tenant's documents", () => {
  it("serialises: the switch commits, then the worker gets the space lock; nobody is a deadlock victim", async () => {
    const docA = (await t.pool.query(`SELECT id::text FROM documents WHERE key = 'a'`)).rows[0].id;
    const S = await t.pool.connect();
    const W = await t.pool.connect();
    try {
      await S.query("BEGIN");
      await W.query("BEGIN");
      const ex = ssql.lockTenantSpaceExclusive(T);
      await S.query(ex.text, ex.values);
      const ld = qsql.lockDocuments([docA]);
      await W.query(ld.text, ld.values);
      const sh = ssql.lockTenantSpacesShared([T]);
      const waiting = W.query(sh.text, sh.values).then(
        () => "W got the shared lock",
        (e: { code?: string }) => `W failed: ${e.code}`,
      );
      await new Promise((r) => setTimeout(r, 200));
      const switched = await switchIn(pgDb(S), {
        tenant: T,
        id: migrationId,
        actor: "op",
        indexReady: (id) => hasSpaceIndex(S, id),
      }).then(
        (r) => r.state,
        (e: { code?: string }) => `S failed: ${e.code}`,
      );
      await S.query("COMMIT");
      expect(switched).toBe("SWITCHED");
      expect(await waiting).toBe("W got the shared lock");
      await W.query("COMMIT");
    } finally {
      await S.query("ROLLBACK").catch(() => undefined);
      await W.query("ROLLBACK").catch(() => undefined);
      S.release();
      W.release();
    }
  }, 60_000);
});

// Seen in a chaos run: the switch drops the pointers of deleted documents whose DELETE has not run
// yet, and dropping a pointer updates its document's search_version (a trigger), so the switch
// waited for a document row after holding every pointer, while the DELETE task held that row and
// waited for the pointer. The switch now leaves the pointer of a document it cannot lock at once to
// that DELETE, which is already on its way.
describe("a switch against a DELETE task of a deleted document", () => {
  it("the switch leaves that pointer to the DELETE; both commit, nobody is a deadlock victim", async () => {
    // The first describe switched; a switch-back drops deleted documents' pointers as a switch does.
    expect((await getMigration(t.pool, T, migrationId)).state).toBe("SWITCHED");
    const docC = (await t.pool.query(`SELECT id::text FROM documents WHERE key = 'c'`)).rows[0].id;
    await requestDelete(t.pool, T, "c", "user:op", 8);
    const S = await t.pool.connect();
    const D = await t.pool.connect();
    try {
      await D.query("BEGIN");
      await S.query("BEGIN");
      const ld = qsql.lockDocuments([docC]);
      await D.query(ld.text, ld.values);
      const switched = switchBackIn(pgDb(S), { tenant: T, id: migrationId, actor: "op" }).then(
        (r) => r.state,
        (e: { code?: string }) => `S failed: ${e.code}`,
      );
      await new Promise((r) => setTimeout(r, 300));
      const dp = qsql.dropSearchPointer(docC);
      const dropped = D.query(dp.text, dp.values).then(
        () => "D dropped the pointer",
        (e: { code?: string }) => `D failed: ${e.code}`,
      );
      expect(await switched).toMatch(/^SWITCHED/);
      await S.query("COMMIT");
      expect(await dropped).toBe("D dropped the pointer");
      await D.query("COMMIT");
      const left = await t.pool.query(
        `SELECT (SELECT count(*)::int FROM search_pointers WHERE document_id = $1) AS active,
                (SELECT count(*)::int FROM space_pointers WHERE document_id = $1) AS shadow`,
        [docC],
      );
      expect(left.rows[0]).toEqual({ active: 0, shadow: 0 });
    } finally {
      await S.query("ROLLBACK").catch(() => undefined);
      await D.query("ROLLBACK").catch(() => undefined);
      S.release();
      D.release();
    }
  }, 60_000);
});
