import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { createTestDb, type TestDb } from "../helpers/db";
import { run, type Statement } from "../../lib/db/pool";
import * as sql from "../../lib/queue/sql";
import * as actions from "../../lib/queue/actions-sql";
import { TRANSITIONS, type Transition, type TransitionActor } from "../../lib/queue/transitions";
import { TASK_STATUSES, TASK_TYPES, type TaskStatus, type TaskType } from "../../lib/domain/constants";
import { STATE_MACHINE_DOC, stateMachineDoc } from "../../scripts/state-diagram";

// The state machine observed, not declared: every statement that writes a task status runs, each
// time in a rolled-back transaction, against one task seeded in every status (and with no task),
// and what it did to the row and the timeline must be a row of TRANSITIONS for its actor. Every
// row must be made by some statement, so the table holds nothing the code no longer does.

const ROOT = path.resolve(import.meta.dirname, "../..");
const TENANT = "tr";
const DOC = randomUUID();
const VERSION = 4;

type Seed = { label: string; status: TaskStatus | null; lease?: "held" | "expired"; lastAttempt?: boolean };
const SEEDS: Seed[] = [
  { label: "no task", status: null },
  ...TASK_STATUSES.filter((s) => s !== "RUNNING").map((status) => ({ label: status, status })),
  { label: "RUNNING, lease held", status: "RUNNING", lease: "held" },
  { label: "RUNNING, lease expired", status: "RUNNING", lease: "expired" },
  { label: "RUNNING, lease expired on its last attempt", status: "RUNNING", lease: "expired", lastAttempt: true },
];

type Seeded = { taskId: string; attempts: number; status: TaskStatus | null };
type Case = {
  name: string;
  actor: TransitionActor;
  type?: TaskType;
  seeds?: (s: Seed) => boolean;
  build: (t: Seeded) => Statement;
};

const existing = (s: Seed) => s.status !== null;
const held = (t: Seeded) => ({ taskId: t.taskId, leaseAttempt: t.attempts });
const STATS = { chunksTotal: 2, chunksReused: 1, batchesSent: 1 };

const CASES: Case[] = [
  { name: "claimTasks", actor: "worker", build: () => sql.claimTasks("w2", 60, 4) },
  { name: "claimTasks (due only)", actor: "worker", build: () => sql.claimTasks("w2", 60, 4, { takeOver: false }) },
  { name: "claimMigrationTasks", actor: "worker", type: "MIGRATE", build: () => sql.claimMigrationTasks("w2", 60, 4) },
  {
    name: "supersedeHeldTasks",
    actor: "worker",
    build: (t) => sql.supersedeHeldTasks("w", [{ ...held(t), reason: "document deleted", businessVersion: VERSION }]),
  },
  { name: "completeTasks", actor: "worker", build: (t) => sql.completeTasks("w", [{ ...held(t), stats: STATS }]) },
  {
    name: "failTask (retry)",
    actor: "worker",
    build: (t) => sql.failTask(t.taskId, "w", t.attempts, "RETRY_WAIT", 5, "EMBEDDING_TIMEOUT", "timed out"),
  },
  {
    name: "failTask (dead)",
    actor: "worker",
    build: (t) => sql.failTask(t.taskId, "w", t.attempts, "DEAD", 0, "PARSE_ERROR", "bad input"),
  },
  { name: "releaseTask", actor: "worker", build: (t) => sql.releaseTask(t.taskId, "w", t.attempts) },

  {
    name: "supersedeOlderTasks",
    actor: "publisher",
    build: () => actions.supersedeOlderTasks(DOC, VERSION + 1, "p", TASK_TYPES),
  },
  {
    name: "createTask (publish)",
    actor: "publisher",
    seeds: () => true,
    build: () => actions.createTask(TENANT, DOC, VERSION, "INDEX", 3, "p", { versionNumber: VERSION }),
  },
  {
    name: "createTask (delete)",
    actor: "publisher",
    type: "DELETE",
    seeds: () => true,
    build: () => actions.createTask(TENANT, DOC, VERSION, "DELETE", 3, "p", null),
  },
  {
    name: "reopenReindexTask",
    actor: "publisher",
    type: "REINDEX",
    seeds: () => true,
    build: (t) => actions.reopenReindexTask(TENANT, DOC, VERSION, 3, "p", t.status),
  },

  { name: "retryTask", actor: "operator", build: (t) => actions.retryTask(t.taskId, 3, "op", { reason: null }) },
  {
    name: "retryDeadTasks",
    actor: "operator",
    build: () =>
      actions.retryDeadTasks({ errorCode: null, tenant: null, type: null, tenants: null }, [DOC], 3, "op", {
        bulk: true,
      }),
  },
  {
    name: "forceDoneTask",
    actor: "operator",
    build: (t) => actions.forceDoneTask(t.taskId, null, "op", "acknowledged"),
  },
  {
    name: "cancelTask",
    actor: "operator",
    build: (t) => actions.cancelTask(t.taskId, "Cancelled by op: not needed", "op", { reason: "not needed" }),
  },

  {
    name: "createTask (index)",
    actor: "reconciler",
    seeds: () => true,
    build: () => actions.createTask(TENANT, DOC, VERSION, "INDEX", 3, "reconciler", { reason: "MISSING_TASK" }),
  },
  {
    name: "restartReindexTask",
    actor: "reconciler",
    type: "REINDEX",
    seeds: () => true,
    build: () => actions.restartReindexTask(TENANT, DOC, VERSION, 3, "reconciler", { reason: "STALE_MODEL" }),
  },
  {
    name: "expireExhaustedLease",
    actor: "reconciler",
    build: (t) => actions.expireExhaustedLease(t.taskId, t.attempts, 0, "reconciler"),
  },

  {
    name: "queueMigrationTasks",
    actor: "migration",
    type: "MIGRATE",
    seeds: () => true,
    build: () => actions.queueMigrationTasks(TENANT, 1, "1", 3, "system"),
  },
  {
    name: "supersedeMigrationTasks",
    actor: "migration",
    type: "MIGRATE",
    build: () => actions.supersedeMigrationTasks(TENANT, "op", "migration aborted"),
  },
];

/** Statements that write no task status: reads, locks, pointer and index-version writes, and an event that records no move. */
const NOT_STATUS_WRITERS = new Set([
  "renewLease",
  "recordRenewLost",
  "lockDocument",
  "lockDocuments",
  "lockHeldTasks",
  "leasesHeld",
  "notifyTasks",
  "moveSearchPointers",
  "dropSearchPointer",
  "retireDocumentIndexVersions",
  "lockDeadTaskDocuments",
]);

type Observed = { from: TaskStatus | null; to: TaskStatus | null; events: string[] };

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1)`, [TENANT]);
  await t.pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, 'doc', 'doc', $3)`,
    [DOC, TENANT, VERSION],
  );
  // Search serves VERSION, so a migration has work to queue for it.
  await t.pool.query(
    `WITH iv AS (
       INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count)
       VALUES (gen_random_uuid(), $2, $1, $3, 'ACTIVE', 'md-heading-v2', 'indexwright-local-hash-v1', 384, 0) RETURNING id)
     INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) SELECT $1, $2, id, $3 FROM iv`,
    [DOC, TENANT, VERSION],
  );
});
afterAll(async () => t?.close());

/** Seed `seed` as a task of `type`, run the statement, report what changed; everything is rolled back. */
async function observe(c: Case, seed: Seed): Promise<Observed> {
  const client = await t.pool.connect();
  const type = c.type ?? "INDEX";
  try {
    await client.query("BEGIN");
    let seeded: Seeded = { taskId: "0", attempts: 0, status: null };
    if (seed.status !== null) {
      const attempts = seed.lastAttempt ? 3 : 1;
      const r = await client.query<{ task_id: string }>(
        `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, max_attempts, lease_owner, lease_until, next_attempt_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, 3, $7,
                 CASE $8::text WHEN 'held' THEN now() + interval '1 minute' WHEN 'expired' THEN now() - interval '1 hour' END,
                 now() - interval '1 second', CASE WHEN $5 IN ('PENDING', 'RUNNING', 'RETRY_WAIT') THEN NULL ELSE now() END)
         RETURNING task_id::text`,
        [TENANT, DOC, VERSION, type, seed.status, attempts, seed.lease ? "w" : null, seed.lease ?? null],
      );
      seeded = { taskId: r.rows[0].task_id, attempts, status: seed.status };
    }
    const mark = (await client.query<{ id: string }>(`SELECT coalesce(max(id), 0)::text AS id FROM task_events`))
      .rows[0].id;
    await run(client, c.build(seeded));
    const after = await client.query<{ status: TaskStatus }>(
      `SELECT status FROM index_tasks WHERE document_id = $1 AND version_number = $2 AND task_type = $3`,
      [DOC, VERSION, type],
    );
    const events = await client.query<{ kind: string }>(`SELECT kind FROM task_events WHERE id > $1 ORDER BY id`, [
      mark,
    ]);
    return { from: seed.status, to: after.rows[0]?.status ?? null, events: events.rows.map((e) => e.kind) };
  } finally {
    await client.query("ROLLBACK");
    client.release();
  }
}

const same = (row: Transition, actor: TransitionActor, o: Observed) =>
  row.actor === actor &&
  row.from === o.from &&
  row.to === o.to &&
  row.events.length === o.events.length &&
  row.events.every((e, i) => e === o.events[i]);

describe("task transitions", () => {
  it("every status-writing statement moves only along TRANSITIONS, and every row is made by one", async () => {
    const made = new Set<Transition>();
    const stray: string[] = [];
    for (const c of CASES) {
      for (const seed of SEEDS.filter(c.seeds ?? existing)) {
        const o = await observe(c, seed);
        if (o.from === o.to && o.events.length === 0) continue;
        const row = TRANSITIONS.find((r) => same(r, c.actor, o));
        if (row) made.add(row);
        else
          stray.push(
            `${c.name} from ${seed.label}: ${o.from ?? "(none)"} → ${o.to ?? "(none)"} [${o.events.join(", ")}] by ${c.actor}`,
          );
      }
    }
    expect(stray).toEqual([]);
    expect(
      TRANSITIONS.filter((r) => !made.has(r)).map(
        (r) => `${r.from ?? "(new)"} → ${r.to} by ${r.actor} [${r.events.join(", ")}]`,
      ),
    ).toEqual([]);
  }, 60_000);

  it("runs every exported statement of lib/queue that writes a status", () => {
    const exported = [...Object.entries(sql), ...Object.entries(actions)]
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k);
    const covered = new Set([...NOT_STATUS_WRITERS, ...CASES.map((c) => c.name.split(" ")[0])]);
    expect(exported.filter((k) => !covered.has(k))).toEqual([]);
  });

  it("has no task status write or timeline insert outside lib/queue", () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = path.join(d, name);
        if (statSync(p).isDirectory()) {
          if (name !== "generated" && name !== "node_modules") walk(p);
        } else if (/\.(ts|tsx)$/.test(name)) files.push(p);
      }
    };
    for (const dir of ["lib", "worker", "app", "cli"]) walk(path.join(ROOT, dir));
    const writes = /UPDATE\s+index_tasks|INSERT\s+INTO\s+(index_tasks|task_events)/i;
    const offenders = files.filter(
      (f) => !f.startsWith(path.join(ROOT, "lib/queue") + path.sep) && writes.test(readFileSync(f, "utf8")),
    );
    expect(offenders.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it("docs/state-machine.md is the diagram drawn from the table (npm run docs:states)", () => {
    expect(readFileSync(STATE_MACHINE_DOC, "utf8")).toBe(stateMachineDoc());
  });
});
