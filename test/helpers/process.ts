import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The arguments to `node` that run `indexwright worker` from the source tree, as `npm run worker` does. */
export function workerArgs(id: string, concurrency: number): string[] {
  return [
    "--conditions=react-server",
    "--import",
    "tsx",
    path.join(ROOT, "cli/main.ts"),
    "worker",
    "--concurrency",
    String(concurrency),
    "--id",
    id,
  ];
}

/** Starts `indexwright worker` as a real child process against `databaseUrl`. */
export function spawnWorker(
  databaseUrl: string,
  id: string,
  env: Record<string, string> = {},
  concurrency = 2,
): ChildProcess & { logs: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, workerArgs(id, concurrency), {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, POLL_INTERVAL_MS: "100", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  }) as ChildProcess & { logs: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> };
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  child.logs = () => out;
  child.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return child;
}
