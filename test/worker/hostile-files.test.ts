import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { resetContent } from "../helpers/seed";
import { testWorker, waitFor } from "../helpers/worker";
import { docxBomb, honestHugeDocx, markdownBracketFlood, pdfFlateBomb } from "../helpers/hostile-files";
import { publish } from "../../lib/documents/publish";
import { DOCX_CONTENT_TYPE, PDF_CONTENT_TYPE } from "../../lib/pipeline/parse";
import { parsePool } from "../../lib/pipeline/parsers/sandbox";

// Hostile files through the real worker: each ends DEAD with PARSE_LIMIT_EXCEEDED at its first
// attempt, naming its limit, while another tenant's one-paragraph publish becomes searchable as
// quickly as on an idle worker and the worker process's memory stays flat (the parse runs in a
// child process, whose own memory is bounded by its heap limit).
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await resetContent(t.pool);
});
afterAll(async () => t?.close());

const MiB = 1024 * 1024;
/** The worker process's RSS bound while a hostile file is parsed: what it is at rest plus 256 MiB. */
const RSS_HEADROOM = 256 * MiB;
/** The other tenant's publish → searchable, during a hostile parse: well inside the idle p95. */
const MAX_LATENCY_MS = 5_000;

const rssOf = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4096;
  } catch {
    return 0;
  }
};

let n = 0;
async function otherTenantLatency(): Promise<number> {
  const key = `note-${n++}`;
  const t0 = performance.now();
  const r = await publish(t.pool, {
    tenant: "other",
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(`One paragraph about the ${key} policy for the other tenant.`),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });
  await waitFor(
    async () =>
      (await t.pool.query(`SELECT 1 FROM index_tasks WHERE task_id = $1 AND status = 'SUCCEEDED'`, [r.taskId]))
        .rowCount,
    30_000,
    10,
  );
  const served = await t.pool.query(`SELECT 1 FROM search_pointers WHERE document_id = $1`, [r.documentId]);
  expect(served.rowCount).toBe(1);
  return performance.now() - t0;
}

it("each hostile file ends DEAD PARSE_LIMIT_EXCEEDED at attempt 1 while another tenant's publish stays fast", async () => {
  // 4 s instead of 10 s, so the bracket flood (15–17 s in markdown-it here) fails sooner.
  const w = testWorker(t, "hostile", { PARSE_TIMEOUT_MS: "4000", POLL_INTERVAL_MS: "50" }, 2);
  await w.start();
  const results: Record<string, unknown>[] = [];
  try {
    // Warm both parse processes, then the idle latency.
    await otherTenantLatency();
    await otherTenantLatency();
    const idle: number[] = [];
    for (let i = 0; i < 5; i++) idle.push(await otherTenantLatency());
    idle.sort((a, b) => a - b);
    const rssAtRest = process.memoryUsage().rss;

    const cases: { name: string; contentType: string; bytes: () => Promise<Uint8Array> | Uint8Array; limit: RegExp }[] =
      [
        {
          name: "docx inflating to 1 GiB behind a declared 1 KB",
          contentType: DOCX_CONTENT_TYPE,
          bytes: () => docxBomb(),
          limit: /^limit inflated size: /,
        },
        {
          name: "honest docx of 200 MB XML",
          contentType: DOCX_CONTENT_TYPE,
          bytes: () => honestHugeDocx(),
          limit: /^limit inflated size: /,
        },
        {
          name: "pdf with a 1 GiB FlateDecode stream",
          contentType: PDF_CONTENT_TYPE,
          bytes: () => pdfFlateBomb(),
          limit: /^limit decoded size: /,
        },
        {
          name: "10 MiB markdown bracket flood",
          contentType: "text/markdown",
          bytes: () => markdownBracketFlood(),
          limit: /^limit time: /,
        },
      ];
    for (const c of cases) {
      const content = Buffer.from(await c.bytes());
      let peakRss = process.memoryUsage().rss;
      let peakChildRss = 0;
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
        peakChildRss = Math.max(peakChildRss, ...parsePool().pids.map(rssOf));
      }, 25);
      try {
        const bad = await publish(t.pool, {
          tenant: "attacker",
          key: `bad-${results.length}`,
          title: c.name,
          contentType: c.contentType,
          content,
          acl: [],
          abstract: null,
          overview: null,
          actor: "test",
          maxAttempts: 5,
        });
        await waitFor(
          async () =>
            (await t.pool.query(`SELECT 1 FROM index_tasks WHERE task_id = $1 AND status = 'RUNNING'`, [bad.taskId]))
              .rowCount,
          10_000,
          5,
        );
        const latency = await otherTenantLatency();
        const row = await waitFor(
          async () =>
            (
              await t.pool.query(
                `SELECT status, attempts, error_code, error_message FROM index_tasks WHERE task_id = $1 AND status NOT IN ('PENDING', 'RUNNING')`,
                [bad.taskId],
              )
            ).rows[0],
          60_000,
        );
        const afterMs = await otherTenantLatency();
        results.push({
          name: c.name,
          bytes: content.length,
          status: row.status,
          attempts: row.attempts,
          code: row.error_code,
          latencyMs: Math.round(latency),
          latencyAfterMs: Math.round(afterMs),
          peakWorkerRssMiB: Math.round(peakRss / MiB),
          peakParseProcessRssMiB: Math.round(peakChildRss / MiB),
        });
        expect({ status: row.status, attempts: row.attempts, code: row.error_code }).toEqual({
          status: "DEAD",
          attempts: 1,
          code: "PARSE_LIMIT_EXCEEDED",
        });
        expect(row.error_message).toMatch(c.limit);
        expect(row.error_message).toMatch(/retrying will not help/);
        expect(latency).toBeLessThan(MAX_LATENCY_MS);
        expect(peakRss).toBeLessThan(rssAtRest + RSS_HEADROOM);
      } finally {
        clearInterval(sampler);
      }
    }
    console.log(
      JSON.stringify({
        idleLatencyMs: { p50: Math.round(idle[2]), max: Math.round(idle[4]) },
        rssAtRestMiB: Math.round(rssAtRest / MiB),
        cases: results,
      }),
    );
  } finally {
    await w.stop(2000);
  }
}, 240_000);
