// graphile-worker in the queue benchmark: run() with its documented defaults (2 s poll interval
// behind LISTEN/NOTIFY, prepared statements, pool of 10, no local queue and no completion
// batching), concurrency as given, one no-op task. Its logger is silenced as ours is.
import { run, Logger, type Runner } from "graphile-worker";
import { runChild, countStatements } from "./child";

await runChild(async (env) => {
  const profile = process.env.BENCH_PROFILE === "1" ? countStatements() : null;
  let runner: Runner | null = null;
  return {
    async start(done) {
      runner = await run({
        connectionString: env.databaseUrl,
        concurrency: env.concurrency,
        noHandleSignals: true,
        logger: new Logger(() => () => undefined),
        taskList: { noop: async () => undefined },
      });
      runner.events.on("job:success", () => done(1));
    },
    async stop() {
      await runner?.stop();
    },
    stats: () => ({ statements: profile?.() ?? null }),
  };
});
