// Real `indexwright worker` processes for the benches that measure a fleet (bench:migration,
// bench:fairness): started with the inherited environment minus its embedding settings, each
// registered in `workers` before it counts, and stopped with SIGTERM as an operator would.
import pg from "pg";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { freePort } from "./db";
import { workerArgs } from "../test/helpers/process";

const ROOT = path.resolve(import.meta.dirname, "..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type BenchWorker = { child: ChildProcess; id: string; metricsPort: number; logFile: string };

export type WorkerStart = {
  /** Where the worker's log goes (`<id>.log`). */
  logDir: string;
  concurrency: number;
  /** Inherited variables the workers must not see beyond EMBEDDING_* and OPENAI_* (a key variable). */
  withhold?: string[];
  env?: Record<string, string>;
};

/** The workers' environment: the inherited one without embedding settings, then `env`. */
export function workerEnv(url: string, metricsPort: number, o: WorkerStart): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) if (/^(EMBEDDING_|OPENAI_)/.test(k) || o.withhold?.includes(k)) delete base[k];
  return {
    ...base,
    DATABASE_URL: url,
    WORKER_METRICS_PORT: String(metricsPort),
    WORKER_METRICS_HOST: "127.0.0.1",
    ...o.env,
  };
}

/** One worker process, returned once it has registered (60 s at most; its log tail if it exits). */
export async function startWorker(db: pg.Pool, url: string, id: string, o: WorkerStart): Promise<BenchWorker> {
  const metricsPort = await freePort();
  const logFile = path.join(o.logDir, `${id}.log`);
  const out = openSync(logFile, "a");
  const child = spawn(process.execPath, workerArgs(id, o.concurrency), {
    cwd: ROOT,
    env: workerEnv(url, metricsPort, o),
    stdio: ["ignore", out, out],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`worker ${id} exited with ${child.exitCode}:\n${readFileSync(logFile, "utf8").slice(-3000)}`);
    const r = await db
      .query(`SELECT 1 FROM workers WHERE id = $1 AND stopped_at IS NULL`, [id])
      .catch(() => ({ rowCount: 0 }));
    if (r.rowCount) return { child, id, metricsPort, logFile };
    if (Date.now() > deadline) throw new Error(`worker ${id} did not register within 60 s`);
    await sleep(50);
  }
}

export async function stopFleet(ws: BenchWorker[]): Promise<void> {
  await Promise.all(
    ws.map(async (w) => {
      if (w.child.exitCode !== null) return;
      const exited = new Promise((r) => w.child.once("exit", r));
      w.child.kill("SIGTERM");
      await exited;
    }),
  );
}
