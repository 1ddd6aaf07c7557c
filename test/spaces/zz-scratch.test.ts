import { afterAll, beforeAll, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { pauseQueue } from "../../lib/operations/repository";
let t: TestDb;
beforeAll(async () => { t = await createTestDb(); });
afterAll(async () => { await t?.close(); });
it("pause MIGRATE", async () => {
  try {
    const r = await pauseQueue(t.pool, { taskType: "MIGRATE" }, { subject: "x" }, "hold it", null);
    console.log("ok", r);
  } catch (e) { console.log("ERR", (e as Error).constructor.name, (e as {code?: string}).code, (e as Error).message.slice(0, 300)); }
});
