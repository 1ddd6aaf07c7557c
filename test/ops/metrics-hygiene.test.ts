import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createTestDb, type TestDb } from "../helpers/db";
import { promtool, scrapeDashboard, scrapeWorker } from "./exported";
import { recordTask, timeEmbedding } from "../../lib/pipeline/metrics";
import { TaskError } from "../../lib/queue/errors";

// Both endpoints pass Prometheus's own linter, and the webhook backlog gauges read the deliveries
// the senders' claim would take (lib/webhooks/sql.ts claimDeliveries), not the ones it skips.
let t: TestDb;
const TOKEN = "hygiene-token-0123456789abcdef";
beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  // Each case scrapes right after its own writes: no answer shared from an earlier scrape.
  process.env.DASHBOARD_SHARED_READ_MS = "0";
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const declared = (text: string) =>
  [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => ({ name: m[1], type: m[2] }));
const sample = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);

describe("metric hygiene", () => {
  it("promtool check metrics exits 0 on the dashboard's /api/metrics", async () => {
    const text = await scrapeDashboard(TOKEN);
    expect(text).toMatch(/^# TYPE indexwright_web_nodejs_active_handles gauge$/m);
    const r = promtool(["check", "metrics"], text);
    expect(r.output).toBe("");
    expect(r.status).toBe(0);
  });

  it("promtool check metrics exits 0 on a worker's /metrics", async () => {
    // Samples in every labelled series, as a worker that has done some work exports them.
    recordTask("INDEX", "succeeded", 1.5);
    recordTask("INDEX", "dead", 0.2, "PARSE_ERROR");
    await timeEmbedding(new AbortController().signal, async () => [[0.1]]);
    await expect(
      timeEmbedding(new AbortController().signal, () => Promise.reject(new TaskError("EMBEDDING_TIMEOUT", "slow"))),
    ).rejects.toThrow("slow");
    const text = await scrapeWorker();
    expect(text).toMatch(/^indexwright_worker_embedding_errors_total\{error_code="EMBEDDING_TIMEOUT"\} 1$/m);
    expect(text).toMatch(/^# TYPE indexwright_worker_tasks_total counter$/m);
    const r = promtool(["check", "metrics"], text);
    expect(r.output).toBe("");
    expect(r.status).toBe(0);
  });

  it("documents every metric of both endpoints in docs/alerts.md, with its type", async () => {
    const docs = readFileSync(path.resolve(import.meta.dirname, "../../docs/alerts.md"), "utf8");
    const metrics = [...declared(await scrapeDashboard(TOKEN)), ...declared(await scrapeWorker())];
    expect(metrics.length).toBeGreaterThan(40);
    for (const { name, type } of metrics) {
      const processMetric = /^indexwright_(?:web|worker)_((?:process|nodejs)_\w+)$/.exec(name);
      // prom-client's process metrics are listed once, unprefixed; the product's own have a table row.
      if (processMetric) expect(docs, name).toContain(`\`${processMetric[1]}\``);
      else expect(docs, name).toContain(`| \`${name}\` | ${type} |`);
    }
  });

  it("exports the webhook backlog: due deliveries of enabled endpoints and the oldest one's age", async () => {
    expect(sample(await scrapeDashboard(TOKEN), "indexwright_webhook_deliveries_due")).toBe(0);
    expect(sample(await scrapeDashboard(TOKEN), "indexwright_webhook_oldest_due_delivery_age_seconds")).toBe(0);
    const endpoint = async (enabled: boolean) => {
      const id = randomUUID();
      await t.pool.query(
        `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, enabled, secret, created_by) VALUES ($1, 'acme', 'http://127.0.0.1:9/hook', '{task.dead}', $2, 'whsec_dGVzdA==', 'test')`,
        [id, enabled],
      );
      return id;
    };
    const on = await endpoint(true);
    const off = await endpoint(false);
    // status, seconds past next_attempt_at, seconds past lease_until, endpoint; due: 1, 3 and 6.
    const rows: [string, number, number | null, string][] = [
      ["PENDING", 600, null, on],
      ["RETRY_WAIT", -600, null, on],
      ["RETRY_WAIT", 60, null, on],
      ["SENDING", 3600, -30, on],
      ["DELIVERED", 7200, null, on],
      ["SENDING", 7200, 1200, on],
      ["PENDING", 9000, null, off],
    ];
    for (const [i, [status, due, lease, ep]] of rows.entries()) {
      const ev = await t.pool.query(
        `INSERT INTO webhook_events (message_id, tenant_id, type, payload) VALUES ($1, 'acme', 'task.dead', '{}') RETURNING id`,
        [`msg_${i}`],
      );
      await t.pool.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, tenant_id, status, next_attempt_at, lease_until)
         VALUES ($1, $2, 'acme', $3, now() - make_interval(secs => $4), CASE WHEN $5::int IS NULL THEN NULL ELSE now() - make_interval(secs => $5::int) END)`,
        [ev.rows[0].id, ep, status, due, lease],
      );
    }
    const text = await scrapeDashboard(TOKEN);
    expect(sample(text, "indexwright_webhook_deliveries_due")).toBe(3);
    const age = sample(text, "indexwright_webhook_oldest_due_delivery_age_seconds");
    expect(age).toBeGreaterThanOrEqual(1200);
    expect(age).toBeLessThan(1260);
  });
});
