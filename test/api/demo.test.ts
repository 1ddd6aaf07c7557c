import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { seedDemo } from "../../lib/demo";
import { listDocuments } from "../../lib/documents/repository";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

describe("demo mode", () => {
  it("seeds two tenants once, including a failing document and one with several versions", async () => {
    expect(await seedDemo(t.pool)).toBeGreaterThan(6);
    expect(await seedDemo(t.pool)).toBe(0);
    const w = testWorker(t, "demo", {}, 2);
    await w.start();
    await waitFor(
      async () =>
        (
          await t.pool.query(
            `SELECT count(*)::int AS n FROM index_tasks WHERE status IN ('PENDING', 'RUNNING', 'RETRY_WAIT')`,
          )
        ).rows[0].n === 0,
      30_000,
    );
    await w.stop(2000);
    const { items } = await listDocuments(t.pool, { tenants: null, limit: 50 });
    const state = Object.fromEntries(items.map((d) => [`${d.tenant}/${d.key}`, d.state]));
    expect(state["acme/scanned-contract"]).toBe("FAILED");
    expect(items.find((d) => d.key === "scanned-contract")!.lastError!.code).toBe("PARSE_ERROR");
    expect(state["acme/refund-policy"]).toBe("SEARCHABLE");
    expect(items.find((d) => d.key === "refund-policy")!.businessVersion).toBe(3);
    expect(new Set(items.map((d) => d.tenant))).toEqual(new Set(["acme", "globex"]));
    expect(Object.values(state).filter((s) => s === "SEARCHABLE").length).toBe(items.length - 1);
  });
});
