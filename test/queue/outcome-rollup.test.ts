import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { activityRows } from "../../lib/operations/repository";
import { ACTIVITY_RANGES, OUTCOMES } from "../../lib/operations/range";
import { OUTCOME_SEAL_LAG_SECONDS, rollUpTaskOutcomes } from "../../lib/queue/snapshots";

// The 24-hour and 7-day activity read per-bucket counts rolled up once a bucket is sealed, and count
// only the rest from index_tasks. Whatever has been rolled up, they must answer what counting every
// task in the range answers.
let t: TestDb;
const TENANTS = ["ra", "rb", "rc"];
const STATUSES = [...OUTCOMES, "PENDING", "CANCELLED"];

/** What activityRows answered before roll-ups: every task finished in the range, counted. */
async function counted(seconds: number, bucketSeconds: number, tenants: string[] | null): Promise<string[]> {
  const { rows } = await t.pool.query<{ bucket: Date; status: string; n: number }>(
    `SELECT date_bin(make_interval(secs => $2::double precision), finished_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket, status, count(*)::int AS n
       FROM index_tasks
      WHERE finished_at > now() - make_interval(secs => $1::double precision) AND status = ANY($3::text[])
        AND ($4::text[] IS NULL OR tenant_id = ANY($4::text[]))
      GROUP BY 1, 2`,
    [seconds, bucketSeconds, [...OUTCOMES], tenants],
  );
  return rows.map((r) => `${r.bucket.toISOString()} ${r.status} ${r.n}`).sort();
}

async function answered(range: "24h" | "7d", tenants: string[] | null): Promise<string[]> {
  const r = ACTIVITY_RANGES[range];
  const { buckets } = await activityRows(t.pool, {
    seconds: r.seconds,
    bucketSeconds: r.bucketSeconds,
    historyStepSeconds: 900,
    tenants,
  });
  return buckets.map((b) => `${b.bucket.toISOString()} ${b.status} ${b.n}`).sort();
}

async function expectSameAnswers() {
  for (const range of ["24h", "7d"] as const) {
    for (const tenants of [null, ["rb"], ["ra", "rc"]]) {
      const r = ACTIVITY_RANGES[range];
      expect(await answered(range, tenants), `${range} ${tenants}`).toEqual(
        await counted(r.seconds, r.bucketSeconds, tenants),
      );
    }
  }
}

beforeAll(async () => {
  t = await createTestDb();
  // 3,000 tasks over the last eight days (and a few in the last minutes, unsealed), every status;
  // none within a minute of a range's start, where the two reads' clocks differ by milliseconds.
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const docs = TENANTS.map(() => randomUUID());
  for (const tenant of TENANTS) await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1)`, [tenant]);
  for (const [i, tenant] of TENANTS.entries()) {
    await t.pool.query(
      `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, 'k', 'k', 1)`,
      [docs[i], tenant],
    );
  }
  const rows: { tenant: string; doc: string; version: number; status: string; agoSeconds: number | null }[] = [];
  for (let v = 1; v <= 3000; v++) {
    const i = Math.floor(rand() * TENANTS.length);
    const status = STATUSES[Math.floor(rand() * STATUSES.length)];
    let ago = v <= 60 ? rand() * 600 : rand() * 8 * 86_400;
    if ([86_400, 604_800].some((edge) => Math.abs(ago - edge) < 60)) ago += 120;
    rows.push({ tenant: TENANTS[i], doc: docs[i], version: v, status, agoSeconds: status === "PENDING" ? null : ago });
  }
  await t.pool.query(
    `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, finished_at)
     SELECT tenant, doc::uuid, version, 'INDEX', status, CASE WHEN ago IS NULL THEN NULL ELSE now() - make_interval(secs => ago) END
       FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::float8[]) AS u(tenant, doc, version, status, ago)`,
    [
      rows.map((r) => r.tenant),
      rows.map((r) => r.doc),
      rows.map((r) => r.version),
      rows.map((r) => r.status),
      rows.map((r) => r.agoSeconds),
    ],
  );
}, 60_000);
afterAll(async () => t?.close());

describe("activity over rolled-up task outcomes", () => {
  it("answers the same before any roll-up, after one, and after tasks finish past the watermark", async () => {
    await expectSameAnswers();
    const sealed = await rollUpTaskOutcomes(t.pool);
    expect(sealed).toBeInstanceOf(Date);
    // Sealed a few minutes back, never up to now: a finishing transaction may not have committed.
    expect(Date.now() - sealed!.getTime()).toBeGreaterThanOrEqual(OUTCOME_SEAL_LAG_SECONDS * 1000);
    expect(Number((await t.pool.query(`SELECT count(*) FROM task_outcome_counts`)).rows[0].count)).toBeGreaterThan(0);
    expect(await rollUpTaskOutcomes(t.pool)).toBeNull();
    await expectSameAnswers();
    // A task finishing now lands after the watermark and is counted from index_tasks.
    await t.pool.query(
      `UPDATE index_tasks SET status = 'SUCCEEDED', finished_at = now() WHERE task_id = (SELECT min(task_id) FROM index_tasks WHERE status = 'PENDING')`,
    );
    await expectSameAnswers();
  });

  it("counts each task once when workers roll up at the same time", async () => {
    await t.pool.query(`TRUNCATE task_outcome_counts; UPDATE task_outcome_rollup SET sealed_until = NULL`);
    const results = await Promise.all(Array.from({ length: 4 }, () => rollUpTaskOutcomes(t.pool)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const { rows } = await t.pool.query<{ rolled: number; finished: number }>(
      `SELECT (SELECT coalesce(sum(n), 0)::int FROM task_outcome_counts) AS rolled,
              (SELECT count(*)::int FROM index_tasks, task_outcome_rollup r
                WHERE finished_at < r.sealed_until AND finished_at >= date_bin(interval '15 minutes', now() - interval '8 days', TIMESTAMPTZ '2000-01-01 00:00:00+00')) AS finished`,
    );
    expect(rows[0].rolled).toBe(rows[0].finished);
    await expectSameAnswers();
  });

  // A finishing transaction still open when its bucket would be sealed: finished_at is its start,
  // so counting the bucket then would miss the task for good. Needs a second real session.
  it.runIf(onRealPostgres)(
    "does not seal the bucket of a transaction still open, and counts its task once it commits",
    async () => {
      await t.pool.query(`TRUNCATE task_outcome_counts; UPDATE task_outcome_rollup SET sealed_until = NULL`);
      const open = await t.pool.connect();
      try {
        await open.query("BEGIN");
        const { rows } = await open.query<{ id: string; at: Date }>(
          `UPDATE index_tasks SET status = 'SUCCEEDED', finished_at = now() WHERE task_id = (SELECT min(task_id) FROM index_tasks WHERE status = 'PENDING') RETURNING task_id::text AS id, finished_at AS at`,
        );
        // An hour later by the roll-up's clock, the transaction's bucket has long ended.
        const asOf = new Date(Date.now() + 3_600_000);
        const sealed = await rollUpTaskOutcomes(t.pool, { asOf });
        expect(sealed).not.toBeNull();
        expect(sealed!.getTime()).toBeLessThanOrEqual(rows[0].at.getTime());
        await open.query("COMMIT");
        await rollUpTaskOutcomes(t.pool, { asOf });
        const { rows: n } = await t.pool.query<{ rolled: number; finished: number }>(
          `SELECT (SELECT coalesce(sum(n), 0)::int FROM task_outcome_counts) AS rolled,
                (SELECT count(*)::int FROM index_tasks, task_outcome_rollup r
                  WHERE finished_at < r.sealed_until AND finished_at >= date_bin(interval '15 minutes', $1::timestamptz - interval '8 days', TIMESTAMPTZ '2000-01-01 00:00:00+00')) AS finished`,
          [asOf],
        );
        expect(n[0].rolled).toBe(n[0].finished);
        const task = await t.pool.query(
          `SELECT 1 FROM index_tasks, task_outcome_rollup r WHERE task_id = $1 AND finished_at < r.sealed_until`,
          [rows[0].id],
        );
        expect(task.rowCount).toBe(1);
      } finally {
        await open.query("ROLLBACK").catch(() => undefined);
        open.release();
      }
    },
  );
});
