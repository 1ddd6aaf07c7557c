import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHash, randomUUID } from "node:crypto";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { taskRow } from "../helpers/seed";
import { claim } from "../../lib/queue/engine";
import { claimTasks } from "../../lib/queue/sql";
import { LOCAL_MODEL, LOCAL_DEFAULT_DIMS } from "../../lib/pipeline/local-embedder";

// Operator cancel and queue pauses through the real route handlers on a real database, with no
// worker running: every claim here is the test's own, so each interleaving is placed exactly.
const ADMIN = "cancel-admin-token-0123456789abcdef";
const LIMITED = "cancel-limited-token-0123456789abcd"; // operator, tenant ca only
const VIEWER = "cancel-viewer-token-0123456789abcdef"; // viewer, all tenants

let t: TestDb;
let R: Record<string, any>;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = ADMIN;
  process.env.LOG_LEVEL = "silent";
  const base = "../../app/api/v1";
  R = {
    publish: await import(`${base}/tenants/[tenant]/documents/[key]/versions/route`),
    doc: await import(`${base}/tenants/[tenant]/documents/[key]/route`),
    tasks: await import(`${base}/tasks/route`),
    task: await import(`${base}/tasks/[taskId]/route`),
    cancel: await import(`${base}/tasks/[taskId]/cancel/route`),
    retry: await import(`${base}/tasks/[taskId]/retry/route`),
    forceDone: await import(`${base}/tasks/[taskId]/force-done/route`),
    pauses: await import(`${base}/pauses/route`),
    pause: await import(`${base}/pauses/[id]/route`),
  };
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});
beforeEach(async () => {
  await t.pool.query(
    `TRUNCATE chunks, search_pointers, index_versions, task_events, index_tasks, document_versions, documents, tenants, task_pauses, audit_log, api_tokens CASCADE`,
  );
  for (const [token, name, role, tenants] of [
    [LIMITED, "limited-ops", "operator", ["ca"]],
    [VIEWER, "all-viewer", "viewer", ["*"]],
  ] as const) {
    await t.pool.query(`INSERT INTO api_tokens (id, name, token_hash, role, tenants) VALUES ($1, $2, $3, $4, $5)`, [
      randomUUID(),
      name,
      createHash("sha256").update(token).digest("hex"),
      role,
      [...tenants],
    ]);
  }
});

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
async function send(
  route: any,
  method: string,
  params: object,
  opts: { body?: unknown; token?: string; query?: string } = {},
) {
  const res = (await route[method](
    new Request(`http://localhost/x${opts.query ?? ""}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${opts.token ?? ADMIN}` },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    ctx(params),
  )) as Response;
  return { status: res.status, body: await res.json().catch(() => null) };
}
async function publish(tenant: string, key: string, content = "hello"): Promise<string> {
  const r = await send(
    R.publish,
    "POST",
    { tenant, key },
    { body: { title: key, contentType: "text/plain", content } },
  );
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return String(r.body.taskId);
}
const cancel = (taskId: string, reason = "wrong file uploaded", token = ADMIN) =>
  send(R.cancel, "POST", { taskId }, { body: { reason }, token });
const timeline = async (taskId: string) =>
  (await send(R.task, "GET", { taskId })).body.events as {
    kind: string;
    actor: string;
    detail: { reason?: string } | null;
  }[];
const doc = async (tenant: string, key: string) => (await send(R.doc, "GET", { tenant, key })).body;
const auditRows = async (action: string) =>
  (
    await t.pool.query(
      `SELECT actor, action, tenant_id, target_type, target_id, reason FROM audit_log WHERE action = $1 ORDER BY id`,
      [action],
    )
  ).rows;
const counts = async () =>
  (
    await t.pool.query(
      `SELECT (SELECT count(*)::int FROM audit_log) AS audit, (SELECT count(*)::int FROM task_pauses) AS pauses, (SELECT count(*)::int FROM task_events) AS events`,
    )
  ).rows[0];

describe("cancel", () => {
  it("cancels a PENDING task: CANCELLED with the reason on the task, its timeline, the audit log and the document", async () => {
    const id = await publish("ca", "a");
    const r = await cancel(id);
    expect(r).toEqual({ status: 200, body: { taskId: id, status: "CANCELLED" } });
    expect(await taskRow(t.pool, id)).toMatchObject({
      status: "CANCELLED",
      error_code: "OPERATOR_CANCELLED",
      error_message: "Cancelled by token:bootstrap: wrong file uploaded",
    });
    const last = (await timeline(id)).at(-1)!;
    expect(last).toMatchObject({
      kind: "OPERATOR_CANCEL",
      actor: "token:bootstrap",
      detail: { reason: "wrong file uploaded", from: "PENDING" },
    });
    expect(await auditRows("task.cancel")).toEqual([
      {
        actor: "token:bootstrap",
        action: "task.cancel",
        tenant_id: "ca",
        target_type: "task",
        target_id: id,
        reason: "wrong file uploaded",
      },
    ]);
    // Never built: the document is not searchable, and says why.
    const d = await doc("ca", "a");
    expect(d.state).toBe("FAILED");
    expect(d.lastError).toEqual({
      code: "OPERATOR_CANCELLED",
      message: "Cancelled by token:bootstrap: wrong file uploaded",
    });
    // And no claim takes it.
    expect(await claim(t.pool, "w", 60, 10)).toEqual([]);
  });

  it("cancels a RETRY_WAIT task; refuses a RUNNING or finished one, a DELETE, and a second cancel, writing nothing", async () => {
    const waiting = await publish("ca", "rw");
    await t.pool.query(
      `UPDATE index_tasks SET status = 'RETRY_WAIT', next_attempt_at = now() + interval '1 hour', attempts = 1, error_code = 'EMBEDDING_TIMEOUT' WHERE task_id = $1`,
      [waiting],
    );
    expect((await cancel(waiting)).body.status).toBe("CANCELLED");
    expect((await timeline(waiting)).at(-1)!.detail).toMatchObject({ from: "RETRY_WAIT" });

    const running = await publish("ca", "run");
    await claim(t.pool, "w", 60, 1);
    const before = await counts();
    const r1 = await cancel(running);
    expect(r1.status).toBe(409);
    expect(r1.body.error.code).toBe("TASK_NOT_CANCELLABLE");
    expect(r1.body.error.message).toMatch(/RUNNING \(a worker holds it/);
    // Its lease lapsed (the worker died): no worker holds it, and the answer says what comes next.
    await t.pool.query(`UPDATE index_tasks SET lease_until = now() - interval '1 second' WHERE task_id = $1`, [
      running,
    ]);
    const lapsed = await cancel(running);
    expect([lapsed.status, lapsed.body.error.code]).toEqual([409, "TASK_NOT_CANCELLABLE"]);
    expect(lapsed.body.error.message).toMatch(/lease has lapsed; the next claim takes it over/);
    // Twice: the second finds a terminal state.
    const r2 = await cancel(waiting);
    expect([r2.status, r2.body.error.code]).toEqual([409, "TASK_NOT_CANCELLABLE"]);

    await t.pool.query(`UPDATE index_tasks SET status = 'SUCCEEDED', lease_until = NULL WHERE task_id = $1`, [running]);
    const del = await send(R.doc, "DELETE", { tenant: "ca", key: "run" });
    expect(del.status).toBe(202);
    const r3 = await cancel(String(del.body.taskId));
    expect([r3.status, r3.body.error.code]).toEqual([409, "TASK_NOT_CANCELLABLE"]);
    expect(r3.body.error.message).toMatch(/DELETE/);
    expect(await taskRow(t.pool, String(del.body.taskId))).toMatchObject({ status: "PENDING" });
    const after = await counts();
    // The DELETE call itself audits and logs its task; the refused cancels wrote nothing.
    expect(after.audit - before.audit).toBe((await auditRows("document.delete")).length);
  });

  it("refuses bad input with 400 and an unknown or other-tenant task with 404; a tenant-limited operator cancels in its own tenant", async () => {
    const mine = await publish("ca", "x");
    const theirs = await publish("cb", "x");
    const before = await counts();
    for (const body of [
      {},
      { reason: "" },
      { reason: "ok" },
      { reason: "x".repeat(1001) },
      { reason: "fine reason", extra: 1 },
      { reason: "bad\u0000byte" },
    ]) {
      const r = await send(R.cancel, "POST", { taskId: mine }, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await send(R.cancel, "POST", { taskId: "abc" }, { body: { reason: "a reason" } })).status).toBe(400);
    expect((await cancel("99999999")).status).toBe(404);
    expect((await cancel(theirs, "not mine", LIMITED)).status).toBe(404);
    expect((await cancel(mine, "a reason", VIEWER)).status).toBe(403);
    expect(await counts()).toEqual(before);
    expect((await cancel(mine, "mine to cancel", LIMITED)).body.status).toBe("CANCELLED");
    expect(await taskRow(t.pool, theirs)).toMatchObject({ status: "PENDING" });
  });

  it("a cancelled task is retried like a DEAD one (its cancel no longer reads as an error) or force-closed", async () => {
    const id = await publish("ca", "r");
    await cancel(id);
    const r = await send(R.retry, "POST", { taskId: id }, { body: { reason: "uploaded the right one" } });
    expect(r).toEqual({ status: 200, body: { taskId: id, status: "PENDING" } });
    expect(await taskRow(t.pool, id)).toMatchObject({
      status: "PENDING",
      error_code: null,
      error_message: null,
      finished_at: null,
    });
    expect((await doc("ca", "r")).state).toBe("INDEXING");
    expect((await claim(t.pool, "w", 60, 5)).map((l) => l.taskId)).toEqual([id]);

    const other = await publish("ca", "f");
    await cancel(other);
    const f = await send(R.forceDone, "POST", { taskId: other }, { body: { reason: "not needed" } });
    expect(f.body.status).toBe("RESOLVED");
  });

  it("a cancelled build of the business version leaves the document FAILED though an older version serves", async () => {
    const v1 = await publish("ca", "v");
    // Version 1 built and served (as a worker would leave it), then version 2 published.
    await t.pool.query(`UPDATE index_tasks SET status = 'SUCCEEDED' WHERE task_id = $1`, [v1]);
    const { rows } = await t.pool.query(`SELECT id FROM documents WHERE tenant_id = 'ca' AND key = 'v'`);
    const ivId = randomUUID();
    await t.pool.query(
      `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
       VALUES ($1, 'ca', $2, 1, 'ACTIVE', 'c', $3, $4, 0, 0)`,
      [ivId, rows[0].id, LOCAL_MODEL, LOCAL_DEFAULT_DIMS],
    );
    await t.pool.query(
      `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, 'ca', $2, 1)`,
      [rows[0].id, ivId],
    );
    expect((await doc("ca", "v")).state).toBe("SEARCHABLE");
    const v2 = await publish("ca", "v", "second");
    await cancel(v2, "bad second draft");
    const d = await doc("ca", "v");
    expect([d.state, d.businessVersion, d.searchVersion]).toEqual(["FAILED", 2, 1]);
    expect(d.lastError.message).toBe("Cancelled by token:bootstrap: bad second draft");
  });
});

// Concurrent transactions that must queue behind each other's row locks: the embedded database runs
// one transaction at a time across all connections, so these need the real server.
describe.runIf(onRealPostgres)("cancel interleavings", () => {
  it("vs claim: a claim committed first makes the cancel 409; a cancel committed first leaves nothing to claim", async () => {
    const a = await publish("ca", "c1");
    // The claim holds the row (in flight); the cancel waits on it, then re-reads RUNNING.
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const { rows } = await c.query(claimTasks("w-race", 60, 1));
      expect(rows.map((r) => r.task_id)).toEqual([a]);
      const pending = cancel(a);
      await new Promise((r) => setTimeout(r, 300));
      await c.query("COMMIT");
      const r = await pending;
      expect([r.status, r.body.error.code]).toEqual([409, "TASK_NOT_CANCELLABLE"]);
    } finally {
      c.release();
    }
    expect((await taskRow(t.pool, a)).status).toBe("RUNNING");

    // The other way round: while a cancel holds the task row, the claim skips it (SKIP LOCKED) and,
    // once the cancel commits, never sees it again.
    const b = await publish("ca", "c2");
    const h = await t.pool.connect();
    try {
      await h.query("BEGIN");
      await h.query(`SELECT 1 FROM index_tasks WHERE task_id = $1 FOR UPDATE`, [b]);
      expect(await claim(t.pool, "w2", 60, 5)).toEqual([]);
      await h.query("ROLLBACK");
    } finally {
      h.release();
    }
    await cancel(b);
    expect(await claim(t.pool, "w2", 60, 5)).toEqual([]);
  });

  it("vs publish: both orders end consistent, and concurrent ones serialise on the document", async () => {
    // Publish first: the old version's task is SUPERSEDED, so the cancel is refused.
    const old = await publish("ca", "p1");
    await publish("ca", "p1", "newer");
    expect((await taskRow(t.pool, old)).status).toBe("SUPERSEDED");
    expect((await cancel(old)).body.error.code).toBe("TASK_NOT_CANCELLABLE");
    // Cancel first: the publish queues the new version as usual; the document indexes again.
    const first = await publish("ca", "p2");
    await cancel(first);
    const next = await publish("ca", "p2", "newer");
    expect((await taskRow(t.pool, first)).status).toBe("CANCELLED");
    expect((await taskRow(t.pool, next)).status).toBe("PENDING");
    expect((await doc("ca", "p2")).state).toBe("INDEXING");
    // Concurrently, many times: exactly one of the two outcomes each time.
    for (let i = 0; i < 8; i++) {
      const id = await publish("ca", `p-race-${i}`);
      const [c, p] = await Promise.all([
        cancel(id),
        send(
          R.publish,
          "POST",
          { tenant: "ca", key: `p-race-${i}` },
          { body: { title: "x", contentType: "text/plain", content: `v2 ${i}` } },
        ),
      ]);
      expect(p.status).toBe(202);
      const status = (await taskRow(t.pool, id)).status;
      if (c.status === 200) expect(status).toBe("CANCELLED");
      else expect([c.body.error.code, status]).toEqual(["TASK_NOT_CANCELLABLE", "SUPERSEDED"]);
      expect((await taskRow(t.pool, String(p.body.taskId))).status).toBe("PENDING");
    }
  });

  it("vs retry and force-done: each needs the state the other leaves, so they apply in order or are refused", async () => {
    const id = await publish("ca", "rf");
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'EMBEDDING_TIMEOUT', finished_at = now() WHERE task_id = $1`,
      [id],
    );
    // DEAD: not cancellable; retried, it is.
    expect((await cancel(id)).body.error.code).toBe("TASK_NOT_CANCELLABLE");
    expect((await send(R.retry, "POST", { taskId: id }, { body: {} })).body.status).toBe("PENDING");
    // Concurrent cancel + retry of a PENDING task: the retry is refused (not DEAD or CANCELLED) or
    // comes second and revives the cancel; never a lost update.
    const [c, r] = await Promise.all([cancel(id), send(R.retry, "POST", { taskId: id }, { body: {} })]);
    expect(c.status).toBe(200);
    const status = (await taskRow(t.pool, id)).status;
    if (r.status === 200) expect(status).toBe("PENDING");
    else expect([r.body.error.code, status]).toEqual(["INVALID_STATE", "CANCELLED"]);
    // Force-done of a DEAD task, then cancel: refused.
    const d = await publish("ca", "fd");
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', finished_at = now() WHERE task_id = $1`, [d]);
    expect((await send(R.forceDone, "POST", { taskId: d }, { body: { reason: "closing" } })).body.status).toBe(
      "RESOLVED",
    );
    expect((await cancel(d)).body.error.code).toBe("TASK_NOT_CANCELLABLE");
  });

  it("vs delete: the delete supersedes a pending build, so a later cancel is refused; a cancelled build is still deleted", async () => {
    const a = await publish("ca", "d1");
    expect((await send(R.doc, "DELETE", { tenant: "ca", key: "d1" })).status).toBe(202);
    expect((await taskRow(t.pool, a)).status).toBe("SUPERSEDED");
    expect((await cancel(a)).body.error.code).toBe("TASK_NOT_CANCELLABLE");
    const b = await publish("ca", "d2");
    await cancel(b);
    const del = await send(R.doc, "DELETE", { tenant: "ca", key: "d2" });
    expect(del.status).toBe(202);
    expect((await taskRow(t.pool, String(del.body.taskId))).status).toBe("PENDING");
    expect((await doc("ca", "d2")).state).toBe("DELETED");
  });

  it("twice at once: exactly one cancel wins, one audit row", async () => {
    const id = await publish("ca", "twice");
    const answers = await Promise.all([
      cancel(id, "first reason"),
      cancel(id, "second reason"),
      cancel(id, "third reason"),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(await auditRows("task.cancel")).toHaveLength(1);
    expect((await timeline(id)).filter((e) => e.kind === "OPERATOR_CANCEL")).toHaveLength(1);
  });
});

describe("pause and resume", () => {
  const pauseTenant = (tenant: string, token = ADMIN, reason = "provider quota for this tenant") =>
    send(R.pauses, "POST", {}, { body: { tenant, reason }, token });

  it("a paused tenant's due tasks and expired leases are not claimed; resuming lets them flow", async () => {
    const a1 = await publish("ca", "one");
    const b1 = await publish("cb", "one");
    const a2 = await publish("ca", "two");
    // a2 is running on a worker that died: its lease expired.
    await t.pool.query(
      `UPDATE index_tasks SET status = 'RUNNING', attempts = 1, lease_owner = 'dead-worker', lease_until = now() - interval '1 minute' WHERE task_id = $1`,
      [a2],
    );
    const p = await pauseTenant("ca");
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({
      tenant: "ca",
      taskType: null,
      pausedBy: "token:bootstrap",
      reason: "provider quota for this tenant",
    });
    expect((await claim(t.pool, "w", 60, 10)).map((l) => l.taskId)).toEqual([b1]);
    expect(await claim(t.pool, "w", 60, 10)).toEqual([]);
    expect(await taskRow(t.pool, a2)).toMatchObject({ status: "RUNNING", lease_owner: "dead-worker", attempts: 1 });
    // The held tasks say why they wait; the one claimed elsewhere does not.
    const list = (await send(R.tasks, "GET", {}, { query: "?limit=50" })).body.items as {
      taskId: string;
      paused: { target: string; by: string; reason: string } | null;
    }[];
    const byId = new Map(list.map((i) => [i.taskId, i.paused]));
    expect(byId.get(a1)).toMatchObject({
      target: "tenant ca",
      by: "token:bootstrap",
      reason: "provider quota for this tenant",
    });
    expect(byId.get(a2)).toMatchObject({ target: "tenant ca" });
    expect(byId.get(b1)).toBeNull();
    expect((await send(R.task, "GET", { taskId: a1 })).body.paused).toMatchObject({ target: "tenant ca" });
    const listed = (await send(R.pauses, "GET", {})).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ tenant: "ca", waiting: 1 });

    const r = await send(R.pause, "DELETE", { id: p.body.id }, { body: { reason: "quota raised" } });
    expect(r).toEqual({ status: 200, body: { id: p.body.id, tenant: "ca", taskType: null, resumed: true } });
    const taken = await claim(t.pool, "w", 60, 10);
    expect(taken.map((l) => l.taskId).sort()).toEqual([a1, a2].sort());
    expect(taken.find((l) => l.taskId === a2)!.takenOver).toBe(true);
    expect(
      (await auditRows("queue.pause")).map((x) => [x.actor, x.tenant_id, x.target_type, x.target_id, x.reason]),
    ).toEqual([["token:bootstrap", "ca", "tenant", "ca", "provider quota for this tenant"]]);
    expect((await auditRows("queue.resume")).map((x) => [x.tenant_id, x.reason])).toEqual([["ca", "quota raised"]]);
    expect((await send(R.pauses, "GET", {})).body.items).toEqual([]);
  });

  it("a task-type pause holds that type in every tenant", async () => {
    const idx = await publish("ca", "i");
    await t.pool.query(`UPDATE index_tasks SET status = 'SUCCEEDED' WHERE task_id = $1`, [idx]);
    const del = await send(R.doc, "DELETE", { tenant: "ca", key: "i" });
    const other = await publish("cb", "i");
    const p = await send(R.pauses, "POST", {}, { body: { taskType: "DELETE", reason: "deletes held for an audit" } });
    expect(p.status).toBe(201);
    expect((await claim(t.pool, "w", 60, 10)).map((l) => l.taskId)).toEqual([other]);
    expect(await taskRow(t.pool, String(del.body.taskId))).toMatchObject({ status: "PENDING" });
    expect((await send(R.task, "GET", { taskId: String(del.body.taskId) })).body.paused).toMatchObject({
      target: "task type DELETE",
    });
    await send(R.pause, "DELETE", { id: p.body.id }, { body: {} });
    expect((await claim(t.pool, "w", 60, 10)).map((l) => l.taskId)).toEqual([String(del.body.taskId)]);
  });

  it("scopes: a tenant-limited operator pauses its tenants only, never a task type; refusals write nothing", async () => {
    await publish("ca", "s");
    await publish("cb", "s");
    const before = await counts();
    const refusals = [
      [await pauseTenant("cb", LIMITED), 403, "FORBIDDEN"],
      [
        await send(R.pauses, "POST", {}, { body: { taskType: "INDEX", reason: "fleet wide" }, token: LIMITED }),
        403,
        "FLEET_SCOPE_REQUIRED",
      ],
      [await pauseTenant("ca", VIEWER), 403, "FORBIDDEN"],
      [
        await send(R.pauses, "POST", {}, { body: { tenant: "ca", taskType: "INDEX", reason: "both named" } }),
        400,
        "VALIDATION_FAILED",
      ],
      [await send(R.pauses, "POST", {}, { body: { reason: "neither named" } }), 400, "VALIDATION_FAILED"],
      [await send(R.pauses, "POST", {}, { body: { tenant: "ca", reason: "no" } }), 400, "VALIDATION_FAILED"],
      [await send(R.pauses, "POST", {}, { body: { taskType: "BOGUS", reason: "bad type" } }), 400, "VALIDATION_FAILED"],
      [await pauseTenant("nobody-here"), 404, "NOT_FOUND"],
    ] as const;
    for (const [r, status, code] of refusals) expect([r.status, r.body.error.code]).toEqual([status, code]);
    expect(await counts()).toEqual(before);

    const mine = await pauseTenant("ca", LIMITED);
    expect(mine.status).toBe(201);
    expect([(await pauseTenant("ca")).status, (await pauseTenant("ca")).body.error.code]).toEqual([
      409,
      "ALREADY_PAUSED",
    ]);
    const other = await pauseTenant("cb");
    const type = await send(R.pauses, "POST", {}, { body: { taskType: "REINDEX", reason: "model migration" } });
    // The limited operator sees its tenant's pause and the fleet-wide one, not tenant cb's.
    const seen = (await send(R.pauses, "GET", {}, { token: LIMITED })).body.items.map(
      (p: { tenant: string | null; taskType: string | null }) => p.tenant ?? p.taskType,
    );
    expect(seen.sort()).toEqual(["REINDEX", "ca"]);
    expect((await send(R.pause, "DELETE", { id: other.body.id }, { token: LIMITED })).status).toBe(404);
    expect((await send(R.pause, "DELETE", { id: type.body.id }, { token: LIMITED })).body.error.code).toBe(
      "FLEET_SCOPE_REQUIRED",
    );
    expect((await send(R.pause, "DELETE", { id: "abc" })).status).toBe(400);
    expect((await send(R.pause, "DELETE", { id: mine.body.id }, { token: LIMITED })).status).toBe(200);
    expect((await send(R.pause, "DELETE", { id: mine.body.id }, { token: LIMITED })).status).toBe(404);
    expect((await t.pool.query(`SELECT tenant_id, task_type FROM task_pauses ORDER BY id`)).rows).toEqual([
      { tenant_id: "cb", task_type: null },
      { tenant_id: null, task_type: "REINDEX" },
    ]);
  });
});
