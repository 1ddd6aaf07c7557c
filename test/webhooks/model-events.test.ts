import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { commandArbitrary, runSequence, Sut, TENANT } from "../model/harness";
import { WEBHOOK_EVENT_TYPES } from "../../lib/webhooks/constants";

// The model-based test's random sequences (publish, delete, rollback, unpin, reindex, rename,
// retry, force-done, worker steps with crashes, takeovers, expired leases, provider failures, a
// model change, GC) run with an endpoint subscribed to every event, so the outbox triggers fire on
// every path the harness drives. After each sequence the events are held to records the code
// writes independently of them: the task timeline (a DEAD or LEASE_EXPIRED_DEAD event per death),
// and the documents, pointers and tasks as they stand at rest.
//   WEBHOOK_MODEL_RUNS=200 WEBHOOK_MODEL_SEED=… npx vitest run test/webhooks/model-events.test.ts

const numRuns = Number(process.env.WEBHOOK_MODEL_RUNS ?? 40);
const seed = process.env.WEBHOOK_MODEL_SEED
  ? Number(process.env.WEBHOOK_MODEL_SEED)
  : (Date.now() ^ (Math.random() * 0x100000000)) | 0;

let t: TestDb;
let sut: Sut;

type Ev = { id: number; type: string; data: Record<string, unknown> };

async function problems(): Promise<string[]> {
  const out: string[] = [];
  const events = (
    await t.pool.query<{ id: string; type: string; payload: { data: Record<string, unknown> } }>(
      `SELECT id, type, payload FROM webhook_events ORDER BY id`,
    )
  ).rows.map((r): Ev => ({ id: Number(r.id), type: r.type, data: r.payload.data }));
  const byId = new Map(events.map((e) => [e.id, e]));
  const deliveries = Number((await t.pool.query(`SELECT count(*) FROM webhook_deliveries`)).rows[0].count);
  if (deliveries !== events.length)
    out.push(`${events.length} events but ${deliveries} deliveries for one subscribed endpoint`);

  // Every death on a task's timeline is one task.dead event, and the other way round.
  const deaths = (
    await t.pool.query<{ task_id: string; n: number }>(
      `SELECT t.task_id::text, (SELECT count(*)::int FROM task_events e WHERE e.task_id = t.task_id AND e.kind IN ('DEAD', 'LEASE_EXPIRED_DEAD')) AS n FROM index_tasks t`,
    )
  ).rows;
  for (const d of deaths) {
    const n = events.filter((e) => e.type === "task.dead" && e.data.taskId === d.task_id).length;
    if (n !== d.n) out.push(`task ${d.task_id}: ${d.n} deaths on its timeline, ${n} task.dead events`);
  }
  // document.failed only beside the task.dead of the same task, in the same transaction, or for
  // a cancelled task (an operator stopped it: no task.dead). A cancelled task may since have been
  // retried, so its timeline, not its status, says whether it was cancelled.
  const cancelled = (
    await t.pool.query<{ task_id: string; n: number }>(
      `SELECT task_id::text, count(*)::int AS n FROM task_events WHERE kind = 'OPERATOR_CANCEL' GROUP BY task_id`,
    )
  ).rows;
  for (const c of cancelled) {
    const n = events.filter(
      (e) => e.type === "document.failed" && e.data.cancelled === true && e.data.taskId === c.task_id,
    ).length;
    if (n > c.n) out.push(`task ${c.task_id}: cancelled ${c.n} time(s), ${n} document.failed events for it`);
  }
  const everCancelled = new Set(cancelled.map((c) => c.task_id));
  for (const e of events.filter((x) => x.type === "document.failed")) {
    if (e.data.cancelled === true) {
      if (!everCancelled.has(String(e.data.taskId)))
        out.push(
          `document.failed #${e.id} says task ${e.data.taskId} was cancelled; its timeline has no OPERATOR_CANCEL`,
        );
      continue;
    }
    const prev = byId.get(e.id - 1);
    if (prev?.type !== "task.dead" || prev.data.taskId !== e.data.taskId)
      out.push(`document.failed #${e.id} (task ${e.data.taskId}) is not beside its task.dead`);
  }

  const docs = (
    await t.pool.query<{
      id: string;
      business_version: number;
      deleted: boolean;
      ptr_version: number | null;
      latest_status: string | null;
      latest_task: string | null;
    }>(
      `SELECT d.id::text, d.business_version, d.deleted_at IS NOT NULL AS deleted, sp.version_number AS ptr_version, lt.status AS latest_status, lt.task_id::text AS latest_task
       FROM documents d
       LEFT JOIN search_pointers sp ON sp.document_id = d.id
       LEFT JOIN LATERAL (SELECT task_id, status FROM index_tasks x WHERE x.document_id = d.id AND x.version_number = d.business_version AND x.task_type IN ('INDEX', 'REINDEX')
                           ORDER BY task_id DESC LIMIT 1) lt ON true`,
    )
  ).rows;
  for (const d of docs) {
    const mine = events.filter((e) => e.data.documentId === d.id);
    const last = (type: string) => mine.filter((e) => e.type === type).at(-1);
    if (!d.deleted && d.ptr_version !== null && d.ptr_version === d.business_version) {
      const s = last("document.searchable");
      if (s?.data.version !== d.business_version)
        out.push(
          `document ${d.id} is served at its business version ${d.business_version}; last document.searchable says ${s ? `v${s.data.version}` : "nothing"}`,
        );
    }
    if (d.deleted) {
      const del = last("document.deleted");
      if (del?.data.version !== d.business_version)
        out.push(
          `document ${d.id} is deleted at v${d.business_version}; last document.deleted says ${del ? `v${del.data.version}` : "nothing"}`,
        );
      const later = mine.filter((e) => e.type === "document.searchable" && del && e.id > del.id);
      if (later.length) out.push(`document ${d.id}: document.searchable after its deletion while still deleted`);
    }
    if (!d.deleted && (d.latest_status === "DEAD" || d.latest_status === "CANCELLED")) {
      const f = last("document.failed");
      if (f?.data.taskId !== d.latest_task || f?.data.version !== d.business_version)
        out.push(
          `document ${d.id} reads FAILED (task ${d.latest_task}); last document.failed says ${f ? `task ${f.data.taskId} v${f.data.version}` : "nothing"}`,
        );
    }
  }
  return out;
}

beforeAll(async () => {
  t = await createTestDb({ poolMax: 4 });
  sut = new Sut(t.pool);
  await t.pool.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, created_by) VALUES ($1, $2, 'https://hooks.example.com/model', $3, 'whsec_bW9kZWw=', 'test')`,
    [randomUUID(), TENANT, [...WEBHOOK_EVENT_TYPES]],
  );
});
afterAll(async () => {
  await sut?.abandon();
  await t?.close();
});

describe("webhook events under the model-based test's random sequences", () => {
  it(
    `${numRuns} sequences: every event matches the timeline and the state at rest`,
    { timeout: 60 * 60_000 },
    async () => {
      console.log(`[webhook model] seed=${seed} runs=${numRuns} (replay: WEBHOOK_MODEL_SEED=${seed})`);
      const seen = new Map<string, number>();
      const expected = WEBHOOK_EVENT_TYPES.filter((t) => !t.startsWith("migration."));
      const missing = () => expected.filter((type) => (seen.get(type) ?? 0) === 0);
      // A batch of random sequences may happen to reach no document.deleted (seed 2012297078 did):
      // further batches from the next seeds run until every kind was reached, at most three more.
      for (let round = 0; round === 0 || (round < 4 && missing().length > 0); round++) {
        await fc.assert(
          fc.asyncProperty(fc.commands([commandArbitrary], { maxCommands: 25, size: "max" }), async (cmds) => {
            await t.pool.query(`TRUNCATE webhook_events, webhook_deliveries`);
            await runSequence(sut, cmds);
            for (const r of (
              await t.pool.query<{ type: string; n: number }>(
                `SELECT type, count(*)::int AS n FROM webhook_events GROUP BY 1`,
              )
            ).rows)
              seen.set(r.type, (seen.get(r.type) ?? 0) + r.n);
            const p = await problems();
            if (p.length) throw new Error(`webhook events disagree with the state:\n  ${p.join("\n  ")}`);
          }),
          { numRuns, seed: seed + round, endOnFailure: true },
        );
      }
      console.log(`[webhook model] events seen: ${[...seen].map(([k, n]) => `${k} ${n}`).join(", ")}`);
      // The sequences did reach every kind of event (otherwise the checks above proved little).
      // Migration events are the migration test's (test/spaces/migration.test.ts): these sequences run none.
      expect(missing()).toEqual([]);
    },
  );
});
