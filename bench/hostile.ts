// Hostile files against a running worker: how fast another tenant's one-paragraph publish becomes
// searchable while a hostile file is being parsed, and how much memory the worker process and its
// parse processes use meanwhile.
//
//   npm run bench:hostile        SAMPLES=20 by default; default parse limits (lib/config.ts)
//
// One in-process Worker (worker/loop.ts, WORKER_CONCURRENCY slots, local embedder) on a database
// of its own (bench/db.ts). Idle: SAMPLES one-paragraph publishes of tenant "other", one at a
// time, each timed from publish until its task SUCCEEDED (the switch that makes it searchable).
// Then per hostile file (built here: test/helpers/hostile-files.ts): tenant "attacker" publishes
// it, and once its task is RUNNING, "other" publishes one paragraph after another until the
// hostile task has an outcome (at least one). RSS of this process and of the parse processes is
// sampled every 20 ms (/proc). The last line is one JSON object.

import { readFileSync } from "node:fs";
import pg from "pg";
import { loadConfig } from "../lib/config";
import { publish } from "../lib/documents/publish";
import { LocalEmbedder } from "../lib/embedding";
import { DOCX_CONTENT_TYPE, PDF_CONTENT_TYPE } from "../lib/pipeline/parse";
import { parsePool } from "../lib/pipeline/parsers/sandbox";
import { Worker } from "../worker/loop";
import { docxBomb, honestHugeDocx, markdownBracketFlood, pdfFlateBomb } from "../test/helpers/hostile-files";
import { percentile, withBenchDatabase } from "./db";

const SAMPLES = Number(process.env.SAMPLES ?? 20);
const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssOf = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4096;
  } catch {
    return 0;
  }
};
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: Math.round(percentile(s, 50)),
    p95: Math.round(percentile(s, 95)),
    max: Math.round(s[s.length - 1]),
  };
};

await withBenchDatabase("hostile", async (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  // The database is dropped WITH (FORCE) right after: an idle client's end is expected then.
  pool.on("error", () => undefined);
  const cfg = loadConfig({
    POLL_INTERVAL_MS: "50",
    LOG_LEVEL: "silent",
    WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY ?? "2",
  });
  const worker = new Worker({
    pool,
    databaseUrl: url,
    workerId: "bench-hostile",
    concurrency: cfg.WORKER_CONCURRENCY,
    cfg,
    embedder: new LocalEmbedder(384),
  });
  await worker.start();
  let n = 0;
  const waitDone = async (
    taskId: string | null,
  ): Promise<{ status: string; attempts: number; error_code: string | null; error_message: string | null }> => {
    for (;;) {
      const r = await pool.query(
        `SELECT status, attempts, error_code, error_message FROM index_tasks WHERE task_id = $1 AND status NOT IN ('PENDING', 'RUNNING', 'RETRY_WAIT')`,
        [taskId],
      );
      if (r.rows[0]) return r.rows[0];
      await sleep(5);
    }
  };
  const otherPublish = async (): Promise<number> => {
    const key = `note-${n++}`;
    const t0 = performance.now();
    const r = await publish(pool, {
      tenant: "other",
      key,
      title: key,
      contentType: "text/markdown",
      content: Buffer.from(`One paragraph about the ${key} policy of the other tenant.`),
      acl: [],
      abstract: null,
      overview: null,
      actor: "bench",
      maxAttempts: 3,
    });
    const row = await waitDone(r.taskId);
    if (row.status !== "SUCCEEDED") throw new Error(`the other tenant's task ended ${row.status}`);
    return performance.now() - t0;
  };
  try {
    for (let i = 0; i < 3; i++) await otherPublish(); // warm-up
    const idle: number[] = [];
    for (let i = 0; i < SAMPLES; i++) idle.push(await otherPublish());
    const rssAtRest = process.memoryUsage().rss;
    const cases = [
      { name: "docx-1GiB-behind-1KB", contentType: DOCX_CONTENT_TYPE, build: () => docxBomb() },
      { name: "docx-200MB-honest-xml", contentType: DOCX_CONTENT_TYPE, build: () => honestHugeDocx() },
      { name: "pdf-1GiB-flatedecode", contentType: PDF_CONTENT_TYPE, build: () => pdfFlateBomb() },
      { name: "markdown-10MiB-brackets", contentType: "text/markdown", build: async () => markdownBracketFlood() },
    ];
    const out: Record<string, unknown>[] = [];
    for (const c of cases) {
      const content = Buffer.from(await c.build());
      let peak = process.memoryUsage().rss;
      let peakChildren = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
        peakChildren = Math.max(
          peakChildren,
          parsePool().pids.reduce((s, p) => s + rssOf(p), 0),
        );
      }, 20);
      const t0 = performance.now();
      const bad = await publish(pool, {
        tenant: "attacker",
        key: `bad-${c.name.toLowerCase()}`,
        title: c.name,
        contentType: c.contentType,
        content,
        acl: [],
        abstract: null,
        overview: null,
        actor: "bench",
        maxAttempts: 5,
      });
      while (
        (await pool.query(`SELECT 1 FROM index_tasks WHERE task_id = $1 AND status = 'PENDING'`, [bad.taskId])).rowCount
      )
        await sleep(2);
      const during: number[] = [];
      let outcome: Awaited<ReturnType<typeof waitDone>> | undefined;
      const done = waitDone(bad.taskId).then((r) => (outcome = r));
      do during.push(await otherPublish());
      while (!outcome);
      await done;
      const hostileMs = performance.now() - t0;
      clearInterval(sampler);
      out.push({
        file: c.name,
        fileBytes: content.length,
        outcome: `${outcome!.status} ${outcome!.error_code} attempt ${outcome!.attempts}`,
        limit: /^limit ([a-z ]+):/.exec(outcome!.error_message ?? "")?.[1] ?? null,
        hostileTaskMs: Math.round(hostileMs),
        otherTenantMs: stats(during),
        peakWorkerRssMiB: Math.round(peak / MiB),
        peakParseProcessesRssMiB: Math.round(peakChildren / MiB),
      });
      console.error(JSON.stringify(out[out.length - 1]));
    }
    console.log(
      JSON.stringify({
        bench: "hostile",
        limits: parsePool().limits,
        idle: { otherTenantMs: stats(idle), workerRssMiB: Math.round(rssAtRest / MiB) },
        cases: out,
      }),
    );
  } finally {
    await worker.stop(2000);
    await parsePool().close();
    await pool.end();
  }
});
