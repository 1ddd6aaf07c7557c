// Our engine in the queue benchmark: the production Worker (worker/loop.ts) with its slots,
// LISTEN/NOTIFY, per-task heartbeat timers, metrics and maintenance, the pool size the worker
// command uses, and fencing and task events as in production; only the task runner is a no-op
// that completes its lease (the same fenced completeTasks statement a real task ends with).
import { runChild, countStatements } from "./child";
import { Worker } from "../../worker/loop";
import { loadConfig } from "../../lib/config";
import { getPool, closePools } from "../../lib/db/pool";
import { LocalEmbedder } from "../../lib/embedding";
import { complete } from "../../lib/queue/engine";
import { configureParsePool, parseLimitsOf } from "../../lib/pipeline/parsers/sandbox";

await runChild(async (env) => {
  const profile = process.env.BENCH_PROFILE === "1" ? countStatements() : null;
  const cfg = loadConfig();
  const pool = getPool(env.databaseUrl, env.concurrency + 4);
  // The worker starts its parse processes before its first claim; that is start-up (as the peers
  // load their libraries before "go"), so it happens here, and worker.start() finds them loaded.
  await configureParsePool(parseLimitsOf(cfg)).warm().ready();
  let done: (n: number) => void = () => undefined;
  const worker = new Worker({
    pool,
    databaseUrl: env.databaseUrl,
    workerId: `bench-${env.runId}-${env.index}`,
    concurrency: env.concurrency,
    cfg,
    embedder: new LocalEmbedder(384),
    preparedStatements: process.env.BENCH_CHILD_PREPARED === "1",
    // One task per slot, as each peer's worker takes one job at a time.
    tasksPerSlot: 1,
    execute: (p, _embedder, members) =>
      Promise.all(
        members.map(async ({ lease }) => {
          await complete(p, lease, null);
          done(1);
          return { status: "fulfilled" as const, value: null };
        }),
      ),
  });
  return {
    async start(onDone) {
      done = onDone;
      await worker.start();
    },
    async stop() {
      await worker.stop(5000);
      await closePools();
    },
    stats: () => ({ statements: profile?.() ?? null, worker: worker.stats }),
  };
});
