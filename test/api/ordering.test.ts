import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { getDocument } from "../../lib/documents/repository";
import { getTask } from "../../lib/operations/repository";
import { listAudit } from "../../lib/audit/repository";
import { claimTasks } from "../../lib/queue/sql";

// Ids are bigints sent to clients as text. Lists must be ordered by the number, not by its text
// ("10" sorts before "9"), or timelines, audit pages and task lists come out scrambled past id 9.
let t: TestDb;
let docId: string;
let firstTask: string;
beforeAll(async () => {
  t = await createTestDb();
  docId = randomUUID();
  await t.pool.query(`INSERT INTO tenants (id, name) VALUES ('ord', 'ord')`);
  await t.pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, 'ord', 'k', 'T', 12)`,
    [docId],
  );
  await t.pool.query(
    `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, next_attempt_at)
     SELECT 'ord', $1, v, 'INDEX', 'PENDING', now() - interval '1 minute' FROM generate_series(1, 12) v`,
    [docId],
  );
  firstTask = (await t.pool.query(`SELECT min(task_id)::text AS id FROM index_tasks`)).rows[0].id;
  await t.pool.query(
    `INSERT INTO task_events (task_id, tenant_id, kind, actor) SELECT $1, 'ord', 'PROGRESS', 'w' || i FROM generate_series(1, 12) i`,
    [firstTask],
  );
  await t.pool.query(
    `INSERT INTO audit_log (actor, action, tenant_id, target_type, target_id) SELECT 'ops', 'task.retry', 'ord', 'task', i::text FROM generate_series(1, 12) i`,
  );
});
afterAll(async () => {
  await t?.close();
});

const numeric = (ids: string[]) => ids.map(Number);
const descending = (xs: number[]) => xs.every((x, i) => i === 0 || xs[i - 1] > x);
const ascending = (xs: number[]) => xs.every((x, i) => i === 0 || xs[i - 1] < x);

describe("lists ordered by id are ordered numerically", () => {
  it("audit log: newest first, and the cursor continues where the page ended", async () => {
    const page1 = await listAudit(t.pool, { limit: 5, tenants: null, fullDetail: true });
    const page2 = await listAudit(t.pool, { limit: 5, cursor: page1.nextCursor!, tenants: null, fullDetail: true });
    const page3 = await listAudit(t.pool, { limit: 5, cursor: page2.nextCursor!, tenants: null, fullDetail: true });
    const all = numeric([...page1.items, ...page2.items, ...page3.items].map((a) => a.id));
    expect(all).toHaveLength(12);
    expect(descending(all)).toBe(true);
  });

  it("task timeline: oldest event first", async () => {
    const task = await getTask(t.pool, firstTask, null);
    const ids = numeric(task!.events.map((e: { id: string }) => e.id));
    expect(ids.length).toBeGreaterThanOrEqual(12);
    expect(ascending(ids)).toBe(true);
  });

  it("a document's tasks: newest first", async () => {
    const doc = await getDocument(t.pool, "ord", "k");
    const ids = numeric(doc!.tasks.map((x) => x.taskId));
    expect(ids).toHaveLength(12);
    expect(descending(ids)).toBe(true);
  });

  it("a batch claim returns its tasks in id order", async () => {
    const { rows } = await t.pool.query(claimTasks("w-order", 60, 12));
    const ids = numeric(rows.map((r) => r.task_id));
    expect(ids).toHaveLength(12);
    expect(ascending(ids)).toBe(true);
  });
});
