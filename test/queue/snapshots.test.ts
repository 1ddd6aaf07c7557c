import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { takeBacklogSnapshot, WARM_UP_SNAPSHOTS } from "../../lib/queue/snapshots";

// Snapshot cadence: quick while the charts have little history, about once a minute after that.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  await t.pool.query(`DELETE FROM backlog_snapshots`);
});

const seed = (secondsAgo: number[]) =>
  t.pool.query(
    `INSERT INTO backlog_snapshots (taken_at, pending, retry_wait, running, dead, due) SELECT now() - make_interval(secs => s), 0, 0, 0, 0, 0 FROM unnest($1::float8[]) s`,
    [secondsAgo],
  );
const count = async () => (await t.pool.query(`SELECT count(*)::int AS n FROM backlog_snapshots`)).rows[0].n;

describe("backlog snapshot cadence", () => {
  it("with little recent history, one is taken 20 s after the last (warm-up), but not twice in a row", async () => {
    await seed([20]);
    expect(await takeBacklogSnapshot(t.pool)).toBe(true);
    expect(await takeBacklogSnapshot(t.pool)).toBe(false);
    expect(await count()).toBe(2);
  });

  it("once the last 10 minutes hold enough, 20 s is too soon and 60 s is due", async () => {
    await seed(Array.from({ length: WARM_UP_SNAPSHOTS }, (_, i) => 20 + i * 30));
    expect(await takeBacklogSnapshot(t.pool)).toBe(false);
    await t.pool.query(`UPDATE backlog_snapshots SET taken_at = taken_at - interval '40 seconds'`);
    expect(await takeBacklogSnapshot(t.pool)).toBe(true);
  });
});
