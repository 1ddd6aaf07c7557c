import os from "node:os";
import { parseArgs } from "node:util";
import { loadConfig, loadReconcileConfig, tracingSettings } from "../lib/config";
import { getPool, databaseUrl, closePools } from "../lib/db/pool";
import { createEmbedder } from "../lib/embedding";
import { registerEnvironmentSpace } from "../lib/spaces/registry";
import { Worker } from "./loop";
import { startWorkerMetrics } from "./metrics-server";
import { WebhookDeliveryLoop, webhookSettings } from "./webhooks";
import { log } from "../lib/log";
import { startTracing } from "../lib/tracing-setup";

/** `npm run worker -- --concurrency N [--id NAME]` */
export async function runWorker(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { concurrency: { type: "string" }, id: { type: "string" } },
    allowPositionals: false,
  });
  const cfg = loadConfig();
  // Fail at start with the variable's name, not as a repeated maintenance warning later.
  loadReconcileConfig();
  // Off (null) unless an OTLP endpoint is set; before the first claim, so every task is traced.
  const tracing = startTracing("worker", tracingSettings());
  const concurrency = values.concurrency ? Number(values.concurrency) : cfg.WORKER_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw new Error("--concurrency must be an integer from 1 to 256");
  const workerId = values.id ?? `${os.hostname()}-${process.pid}`;
  // Before any claim: a metrics port that cannot be had stops the worker with the reason.
  const metrics = await startWorkerMetrics();
  const url = databaseUrl();
  const pool = getPool(url, concurrency + 4);
  const embedder = createEmbedder(cfg);
  await registerEnvironmentSpace(pool, cfg);
  const setting = cfg.WORKER_PREPARED_STATEMENTS;
  const preparedStatements = setting === "auto" ? "auto" : setting === "true";
  const worker = new Worker({
    pool,
    databaseUrl: url,
    workerId,
    concurrency,
    cfg,
    embedder,
    preparedStatements,
    tasksPerSlot: cfg.WORKER_TASKS_PER_SLOT,
  });
  await worker.start();
  const webhooks = new WebhookDeliveryLoop({ pool, workerId, settings: webhookSettings(cfg) });
  webhooks.start();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "stopping: no new claims; finishing in-flight work");
    await Promise.all([
      worker.stop(cfg.SHUTDOWN_GRACE_SECONDS * 1000),
      webhooks.stop(cfg.SHUTDOWN_GRACE_SECONDS * 1000),
    ]);
    await metrics?.close();
    await tracing?.shutdown();
    await closePools();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
