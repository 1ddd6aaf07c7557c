// Fair claim benchmark (docs/decisions/040-fair-claim.md).
//
//   npm run bench:fairness        A_DOCS=20000 TENANTS=100 PER_TENANT=60 by default
//
// What it answers: how long a small publish of one tenant waits while another tenant's bulk
// backlog drains, how evenly many backlogged tenants are served, and what fairness costs the bulk
// tenant, each with the fair claim and with the first-in first-out claim it replaced
// (indexwright.fair_queue = off on the database: every task in one class, in the order queued).
//
// Fleet: WORKERS real `indexwright worker` processes (default 1) with the product's concurrency and
// tasks per slot, the local embedder, a fresh database per run (bench/db.ts).
//
// 1. Bulk backlog, per mode: tenant A publishes A_DOCS one-paragraph documents through publish()
//    (the API's own function; PUBLISHERS at a time), as bulk work in the fair run (what `cli sync`
//    sends) and plain in the FIFO run. From A's first publish on, tenants B and C each publish one
//    one-paragraph document every second; one poll every 10 ms (for all of them at once, on its own
//    connection) sees when each one's search pointer is at the published version: publish →
//    SEARCHABLE as the client sees it. A's drain time runs from its
//    first publish until its last task SUCCEEDED; B and C stop then.
// 2. Many tenants, per mode: TENANTS tenants publish PER_TENANT documents each, one tenant after
//    another, while INDEX work is paused; then it is resumed. Throughput per tenant is counted over
//    the window in which every tenant has work queued (from the resume until the first tenant is drained):
//    the ratio of the most to the least served tenant. Under FIFO the first tenants are served while
//    the last ones wait (the least served gets nothing: the ratio is then reported as null, with
//    the counts).
//
// The last line of stdout is one JSON object.
import pg from "pg";
import os from "node:os";
import path from "node:path";
import { mkdtempSync } from "node:fs";
import { inParallel, machineFacts, percentile, prng, round3, withBenchDatabase } from "./db";
import { publish } from "../lib/documents/publish";
import { loadConfig } from "../lib/config";
import { PRIORITY } from "../lib/queue/sql";
import { pauseQueue, resumeQueue } from "../lib/operations/repository";
import { startWorker, stopFleet } from "./fleet";

const A_DOCS = Number(process.env.A_DOCS ?? 20_000);
const TENANTS = Number(process.env.TENANTS ?? 100);
const PER_TENANT = Number(process.env.PER_TENANT ?? 60);
const WORKERS = Number(process.env.WORKERS ?? 1);
const PUBLISHERS = Number(process.env.PUBLISHERS ?? 8);
const MODES = (process.env.MODES ?? "fair,fifo").split(",") as ("fair" | "fifo")[];
const CFG = loadConfig({});
const CONCURRENCY = Number(process.env.WORKER_CONCURRENCY ?? CFG.WORKER_CONCURRENCY);
const TMP = mkdtempSync(path.join(os.tmpdir(), "iw-bench-fairness-"));
const TARGET = { smallP95Ms: 1000, throughputRatio: 1.5, drainVsFifo: 1.1 };
const log = (m: string) => process.stderr.write(`[bench:fairness] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const WORDS =
  "policy refund travel expense receipt manager approve deadline invoice customer contract renewal security password rotate access badge office desk schedule holiday leave payroll salary benefit insurance claim training onboarding laptop network printer meeting budget forecast quarter audit compliance vendor shipping warehouse inventory".split(
    " ",
  );
const paragraph = (r: () => number) =>
  Array.from(
    { length: 4 },
    () => Array.from({ length: 14 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ") + ".",
  ).join(" ");

const publishNote = (db: pg.Pool, tenant: string, key: string, text: string, bulk: boolean) =>
  publish(db, {
    tenant,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(`# ${key}\n\n${text}`),
    acl: [],
    abstract: null,
    overview: null,
    actor: "bench",
    maxAttempts: 8,
    priority: bulk ? PRIORITY.BULK : PRIORITY.INTERACTIVE,
  });

async function withFleet<T>(
  mode: "fair" | "fifo",
  name: string,
  fn: (db: pg.Pool, url: string) => Promise<T>,
): Promise<T> {
  return withBenchDatabase(`fair_${name}_${mode}`, async (url) => {
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    const dbName = new URL(url).pathname.slice(1);
    await admin.query(`ALTER DATABASE ${dbName} SET indexwright.fair_queue = '${mode === "fair" ? "on" : "off"}'`);
    await admin.end();
    const db = new pg.Pool({ connectionString: url, max: PUBLISHERS + 4 });
    db.on("error", () => undefined);
    const ws = await Promise.all(
      Array.from({ length: WORKERS }, (_, k) =>
        startWorker(db, url, `bench-fair-${mode}-${k}-${process.pid}`, {
          logDir: TMP,
          concurrency: CONCURRENCY,
          env: { LOG_LEVEL: "warn" },
        }),
      ),
    );
    await sleep(1500);
    try {
      return await fn(db, url);
    } finally {
      await stopFleet(ws);
      await db.end();
    }
  });
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  if (s.length === 0) return { samples: 0, p50: null, p95: null, max: null };
  return { samples: s.length, p50: round3(percentile(s, 50)), p95: round3(percentile(s, 95)), max: round3(s.at(-1)!) };
}

async function bulkBacklog(mode: "fair" | "fifo") {
  return withFleet(mode, "bulk", async (db, url) => {
    const r = prng(7);
    const texts = Array.from({ length: A_DOCS }, () => paragraph(r));
    const small: { tenant: string; ms: number; at: number }[] = [];
    let running = true;
    const t0 = performance.now();
    // One poll every 10 ms for every small publish still on its way, on a connection of its own:
    // the load the watching adds is the same however many wait (a poller per publish would pile
    // up exactly when the wait is long, and slow the run it measures).
    const waiting = new Map<string, { tenant: string; version: number; at: number }>();
    const watchPool = new pg.Pool({ connectionString: url, max: 3 });
    const poller = (async () => {
      while (running || waiting.size > 0) {
        if (waiting.size > 0) {
          const ids = [...waiting.keys()];
          const { rows } = await watchPool.query<{ id: string; v: number }>(
            `SELECT sp.document_id::text AS id, sp.version_number AS v FROM search_pointers sp
               JOIN index_versions iv ON iv.id = sp.index_version_id AND iv.status = 'ACTIVE'
              WHERE sp.document_id = ANY($1::uuid[])`,
            [ids],
          );
          const now = performance.now();
          for (const r of rows) {
            const w = waiting.get(r.id);
            if (w && r.v >= w.version) {
              small.push({ tenant: w.tenant, ms: now - w.at, at: (w.at - t0) / 1000 });
              waiting.delete(r.id);
            }
          }
        }
        await sleep(10);
      }
    })();
    const smalls = (async () => {
      for (let i = 0; running; i++) {
        const next = performance.now() + 1000;
        for (const tenant of ["b", "c"]) {
          const at = performance.now();
          const p = await publishNote(watchPool, tenant, `note-${i}`, paragraph(r), false);
          waiting.set(p.documentId, { tenant, version: p.versionNumber, at });
        }
        while (running && performance.now() < next) await sleep(20);
      }
    })();
    let enqueued = 0;
    await inParallel(
      texts.map((text, i) => ({ text, i })),
      PUBLISHERS,
      async ({ text, i }) => {
        await publishNote(db, "a", `doc-${i}`, text, mode === "fair");
        enqueued++;
      },
    );
    const enqueueSeconds = (performance.now() - t0) / 1000;
    log(`${mode}: A enqueued ${enqueued} documents in ${enqueueSeconds.toFixed(1)} s`);
    for (;;) {
      const { rows } = await db.query<{ open: number }>(
        `SELECT count(*)::int AS open FROM index_tasks WHERE tenant_id = 'a' AND status <> 'SUCCEEDED'`,
      );
      if (rows[0].open === 0) break;
      await sleep(100);
    }
    const drainSeconds = (performance.now() - t0) / 1000;
    running = false;
    await smalls;
    await poller;
    await watchPool.end();
    const whileDraining = small.filter((s) => s.at < drainSeconds);
    log(
      `${mode}: A drained in ${drainSeconds.toFixed(1)} s; B and C publish → searchable p95 ${stats(whileDraining.map((s) => s.ms)).p95} ms`,
    );
    return {
      aDocuments: A_DOCS,
      aEnqueueSeconds: round3(enqueueSeconds),
      aDrainSeconds: round3(drainSeconds),
      aDocumentsPerSecond: round3(A_DOCS / drainSeconds),
      smallPublishMs: stats(whileDraining.map((s) => s.ms)),
      smallPublishMsByTenant: {
        b: stats(whileDraining.filter((s) => s.tenant === "b").map((s) => s.ms)),
        c: stats(whileDraining.filter((s) => s.tenant === "c").map((s) => s.ms)),
      },
    };
  });
}

async function manyTenants(mode: "fair" | "fifo") {
  return withFleet(mode, "many", async (db) => {
    const r = prng(11);
    const tenants = Array.from({ length: TENANTS }, (_, k) => `t${String(k).padStart(3, "0")}`);
    // Queued while INDEX work is paused, so every tenant holds a backlog when the fleet starts on them.
    const pause = await pauseQueue(
      db,
      { taskType: "INDEX" },
      { subject: "bench" },
      "bench: backlogs queued first",
      null,
    );
    for (const tenant of tenants)
      await inParallel(
        Array.from({ length: PER_TENANT }, (_, i) => i),
        PUBLISHERS,
        (i) => publishNote(db, tenant, `doc-${i}`, paragraph(r), false),
      );
    await resumeQueue(db, pause.id, { subject: "bench" }, null, null);
    const from = (await db.query<{ t: Date }>(`SELECT now() AS t`)).rows[0].t;
    // The window closes when the first tenant has nothing left queued or running.
    let to: Date;
    for (;;) {
      const { rows } = await db.query<{ drained: number; t: Date }>(
        `SELECT count(*)::int AS drained, now() AS t FROM (
           SELECT tenant_id FROM index_tasks GROUP BY tenant_id HAVING bool_and(status = 'SUCCEEDED')) d`,
      );
      if (rows[0].drained > 0) {
        to = rows[0].t;
        break;
      }
      await sleep(50);
    }
    const { rows } = await db.query<{ tenant_id: string; n: number }>(
      `SELECT x.id AS tenant_id, count(t.task_id)::int AS n
         FROM unnest($1::text[]) AS x(id)
         LEFT JOIN index_tasks t ON t.tenant_id = x.id AND t.status = 'SUCCEEDED' AND t.finished_at > $2 AND t.finished_at <= $3
        GROUP BY x.id`,
      [tenants, from, to],
    );
    const counts = rows.map((x) => x.n).sort((a, b) => a - b);
    const min = counts[0];
    const max = counts.at(-1)!;
    const windowSeconds = (to.getTime() - from.getTime()) / 1000;
    log(`${mode}: ${TENANTS} tenants, window ${windowSeconds.toFixed(1)} s, served per tenant min ${min} max ${max}`);
    return {
      tenants: TENANTS,
      perTenant: PER_TENANT,
      windowSeconds: round3(windowSeconds),
      servedInWindow: {
        min,
        median: counts[Math.floor(counts.length / 2)],
        max,
        total: counts.reduce((a, b) => a + b, 0),
      },
      throughputRatio: min > 0 ? round3(max / min) : null,
    };
  });
}

async function main() {
  const facts = await (async () => {
    const p = new pg.Pool({
      connectionString: process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
      max: 1,
    });
    try {
      return await machineFacts(p);
    } finally {
      await p.end();
    }
  })();
  const out: Record<string, unknown> = {
    bench: "fairness",
    settings: {
      A_DOCS,
      TENANTS,
      PER_TENANT,
      WORKERS,
      CONCURRENCY,
      TASKS_PER_SLOT: CFG.WORKER_TASKS_PER_SLOT,
      PUBLISHERS,
    },
    machine: { ...facts, loadavg: os.loadavg().map((x) => round3(x)) },
    target: TARGET,
  };
  const bulk: Record<string, Awaited<ReturnType<typeof bulkBacklog>>> = {};
  const many: Record<string, Awaited<ReturnType<typeof manyTenants>>> = {};
  for (const mode of MODES) bulk[mode] = await bulkBacklog(mode);
  for (const mode of MODES) many[mode] = await manyTenants(mode);
  out.bulkBacklog = bulk;
  out.manyTenants = many;
  const fair = bulk.fair;
  const fifo = bulk.fifo;
  out.summary = {
    smallPublishP95Ms: { fair: fair?.smallPublishMs.p95 ?? null, fifo: fifo?.smallPublishMs.p95 ?? null },
    aDrainVsFifo: fair && fifo ? round3(fair.aDrainSeconds / fifo.aDrainSeconds) : null,
    throughputRatio: { fair: many.fair?.throughputRatio ?? null, fifo: many.fifo?.throughputRatio ?? null },
    met: {
      smallPublishP95: fair ? (fair.smallPublishMs.p95 ?? Infinity) < TARGET.smallP95Ms : null,
      throughputRatio: many.fair ? (many.fair.throughputRatio ?? Infinity) <= TARGET.throughputRatio : null,
      drainVsFifo: fair && fifo ? fair.aDrainSeconds / fifo.aDrainSeconds <= TARGET.drainVsFifo : null,
    },
    loadavgAfter: os.loadavg().map((x) => round3(x)),
  };
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
