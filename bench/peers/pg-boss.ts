// pg-boss 10 in the queue benchmark, at its documented best for a fixed number of jobs in hand:
// work() fetches a batch (batchSize = the concurrency, so as many jobs are in flight as the
// others have), and the handler calls the documented notifyWorker(id) when the batch came back
// full, so the worker fetches again at once instead of waiting out its polling interval (0.5 s,
// the minimum). PGBOSS_WORKERS splits the concurrency over several work() loops.
import PgBoss from "pg-boss";
import { runChild, countStatements, PGBOSS_QUEUE as QUEUE } from "./child";

await runChild(async (env) => {
  const profile = process.env.BENCH_PROFILE === "1" ? countStatements() : null;
  const loops = Number(process.env.PGBOSS_WORKERS ?? 1);
  const batchSize = Math.max(1, Math.floor(env.concurrency / loops));
  const boss = new PgBoss({ connectionString: env.databaseUrl, max: 10 });
  boss.on("error", (err) => process.stderr.write(`[pg-boss] ${err.message}\n`));
  await boss.start();
  return {
    async start(done) {
      for (let i = 0; i < loops; i++) {
        let id = "";
        id = await boss.work(QUEUE, { batchSize, pollingIntervalSeconds: 0.5 }, async (jobs) => {
          await Promise.all(jobs.map(async () => undefined));
          done(jobs.length);
          if (jobs.length === batchSize && id) boss.notifyWorker(id);
        });
      }
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
    stats: () => ({ statements: profile?.() ?? null, batchSize, loops }),
  };
});
