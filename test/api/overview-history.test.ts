import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { overview } from "../../lib/operations/repository";
import { activity } from "../../lib/operations/activity";

// The backlog history the overview (a day) and the activity ranges carry: every snapshot of the
// newest hour, then the newest one per step. Snapshots every 55 s for a day are 1,571, more than
// the overview once cut off at 1,500 from the oldest end, which dropped the newest hour.
let t: TestDb;
let taken: number[] = [];

beforeAll(async () => {
  t = await createTestDb();
  const { rows } = await t.pool.query<{ at: Date }>(
    `INSERT INTO backlog_snapshots (taken_at, pending, retry_wait, running, dead, due, drift_count)
     SELECT now() - make_interval(secs => i * 55), i, 0, 0, 0, 0, 0 FROM generate_series(0, 1600) i
     RETURNING taken_at AS at`,
  );
  taken = rows.map((r) => r.at.getTime()).sort((a, b) => a - b);
});
afterAll(async () => t?.close());

/** Checks a history against the rule: all of the newest hour, at most one per step before it, newest per step. */
function expectHistory(points: number[], windowMs: number, stepMs: number) {
  const now = Date.now();
  const inWindow = taken.filter((x) => x > now - windowMs + 5_000);
  const lastHour = inWindow.filter((x) => x > now - 3_600_000 + 5_000);
  expect(points).toEqual([...points].sort((a, b) => a - b));
  expect(points.at(-1)).toBe(taken.at(-1));
  for (const x of lastHour) expect(points).toContain(x);
  const older = points.filter((x) => x <= now - 3_600_000 - 5_000);
  const bins = older.map((x) => Math.floor(x / stepMs));
  expect(new Set(bins).size).toBe(bins.length);
  // Each kept older point is the newest snapshot of its step.
  for (const x of older)
    expect(
      inWindow.filter(
        (y) => Math.floor(y / stepMs) === Math.floor(x / stepMs) && y > x && y <= now - 3_600_000 - 5_000,
      ),
    ).toEqual([]);
  expect(points.length).toBeLessThan(inWindow.length / 3);
}

describe("backlog history", () => {
  it("the overview keeps the newest hour whole and one snapshot per 5 minutes of the day before it", async () => {
    const o = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 10 });
    expectHistory(
      o.history.map((h) => Date.parse(h.at)),
      86_400_000,
      300_000,
    );
  });

  it("the 24 h and 7 d activity ranges keep the newest hour whole, then one per 5 and 15 minutes", async () => {
    const day = await activity(t.pool, { range: "24h", tenants: null });
    expectHistory(
      day.history.map((h) => Date.parse(h.at)),
      86_400_000,
      300_000,
    );
    const week = await activity(t.pool, { range: "7d", tenants: null });
    expectHistory(
      week.history.map((h) => Date.parse(h.at)),
      7 * 86_400_000,
      900_000,
    );
  });
});
