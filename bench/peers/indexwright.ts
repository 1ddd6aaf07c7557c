// Our engine in the queue benchmark: the production Worker (worker/loop.ts) with its slots,
// LISTEN/NOTIFY, per-task heartbeat timers, metrics and maintenance, the pool size the worker
// command uses, and fencing and task events as in production; only the task runner is a no-op
// that completes its lease (the same fenced completeTask statement a real task ends with).
import { runChild, countStatements } from "./child";
import { Worker } from "../../worker/loop";
import { loadConfig } from "../../lib/config";
import { getPool, closePools } from "../../lib/db/pool";
import { LocalEmbedder } from "../../lib/embedding";
import { complete } from "../../lib/queue/engine";

await runChild(async (env) => {
  const profile = process.env.BENCH_PROFILE === "1" ? countStatements() : null;
  const cfg = loadConfig();
  const pool = getPool(env.databaseUrl, env.concurrency + 4);
  let done: (n: number) => void = () => undefined;
  const worker = new Worker({
    pool,
    databaseUrl: env.databaseUrl,
    workerId: `bench-${env.runId}-${env.index}`,
    concurrency: env.concurrency,
    cfg,
    embedder: new LocalEmbedder(384),
    preparedStatements: process.env.BENCH_CHILD_PREPARED === "1",
    execute: async (p, _embedder, lease) => {
      await complete(p, lease, null);
      done(1);
      return null;
    },
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
