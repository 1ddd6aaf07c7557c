import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import {
  TASK_STATUSES,
  TASK_TYPES,
  INDEX_VERSION_STATUS,
  ROLES,
  ANOMALY_KINDS,
  ANOMALY_ACTIONS,
} from "../../lib/domain/constants";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

async function checkValues(constraint: string): Promise<string[]> {
  const { rows } = await t.pool.query(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = $1`, [
    constraint,
  ]);
  return [...rows[0].def.matchAll(/'([A-Za-z_]+)'::text/g)].map((m) => m[1]).sort();
}

describe("frozen constants are the ones SQL enforces", () => {
  it("task statuses", async () =>
    expect(await checkValues("index_tasks_status_check")).toEqual([...TASK_STATUSES].sort()));
  it("task types", async () => expect(await checkValues("index_tasks_type_check")).toEqual([...TASK_TYPES].sort()));
  it("index version states", async () =>
    expect(await checkValues("index_versions_status_check")).toEqual(Object.values(INDEX_VERSION_STATUS).sort()));
  it("roles", async () => expect(await checkValues("users_role_check")).toEqual([...ROLES].sort()));
  it("reconciler anomaly kinds", async () =>
    expect(await checkValues("anomaly_events_kind_check")).toEqual([...ANOMALY_KINDS].sort()));
  it("reconciler actions", async () =>
    expect(await checkValues("anomaly_events_action_check")).toEqual([...ANOMALY_ACTIONS].sort()));
});
