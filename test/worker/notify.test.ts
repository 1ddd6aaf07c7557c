import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";

// Publishing NOTIFYs; an idle worker wakes at once instead of waiting out its poll interval.
// The embedded PGlite socket does not deliver NOTIFY to other connections, so this needs the
// real server (CI sets TEST_DATABASE_URL); on PGlite the worker falls back to polling.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

describe("wake-up", () => {
  it.runIf(onRealPostgres)(
    "an idle worker picks up a newly published task long before its 30 s poll interval",
    async () => {
      const w = testWorker(t, "listener", { POLL_INTERVAL_MS: "30000" }, 1);
      await w.start();
      await new Promise((r) => setTimeout(r, 500)); // idle now: first claim found nothing
      const t0 = Date.now();
      const r = await publish(t.pool, {
        tenant: "n",
        key: "wake",
        title: "Wake",
        contentType: "text/plain",
        content: Buffer.from("wake up, a task is here"),
        acl: [],
        abstract: null,
        overview: null,
        actor: "test",
        maxAttempts: 8,
      });
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [r.taskId])).rows[0].status ===
          "SUCCEEDED",
        10_000,
        20,
      );
      const ms = Date.now() - t0;
      await w.stop(2000);
      expect(ms).toBeLessThan(5000);
    },
  );
});
