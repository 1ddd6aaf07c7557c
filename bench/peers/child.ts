// The child side of the queue benchmark: one OS process per worker, forked by bench/queue.ts.
// Set-up (imports, pools, library start-up) happens before the parent's "go", so the clock only
// runs while tasks are being claimed and completed. Progress goes to the parent every 25 ms.
import pg from "pg";

/** The pg-boss queue the benchmark fills and drains. */
export const PGBOSS_QUEUE = "bench-noop";

export type ChildEnv = {
  databaseUrl: string;
  concurrency: number;
  /** Position of this process in the run (0-based), for unique worker names. */
  index: number;
  runId: string;
};

export type System = {
  /** Begin claiming; `done(n)` is called for every n tasks whose completion has been sent. */
  start(done: (n: number) => void): Promise<void>;
  stop(): Promise<void>;
  /** Anything worth reporting (statement counts when profiling). */
  stats?(): Record<string, unknown>;
};

type ToChild = { type: "go" } | { type: "stop" };
export type FromChild =
  | { type: "ready" }
  | { type: "progress"; done: number }
  /** `cpuMs`: this process's CPU time (user + system) from "go" to the "stop" request. */
  | { type: "stopped"; done: number; cpuMs: number; stats: Record<string, unknown> }
  | { type: "error"; message: string };

export function childEnv(): ChildEnv {
  const databaseUrl = process.env.BENCH_CHILD_DATABASE_URL;
  if (!databaseUrl || !process.send) throw new Error("bench/peers/* are started by bench/queue.ts, not directly");
  return {
    databaseUrl,
    concurrency: Number(process.env.BENCH_CHILD_CONCURRENCY ?? 10),
    index: Number(process.env.BENCH_CHILD_INDEX ?? 0),
    runId: process.env.BENCH_CHILD_RUN ?? "run",
  };
}

const send = (m: FromChild) => process.send!(m);

export async function runChild(setup: (env: ChildEnv) => Promise<System>): Promise<void> {
  let system: System;
  try {
    system = await setup(childEnv());
  } catch (err) {
    send({ type: "error", message: (err as Error).stack ?? String(err) });
    process.exit(1);
  }
  let done = 0;
  let reported = 0;
  let cpuAtGo = process.cpuUsage();
  const timer = setInterval(() => {
    if (done !== reported) {
      reported = done;
      send({ type: "progress", done });
    }
  }, 25);
  process.on("message", async (m: ToChild) => {
    try {
      if (m.type === "go") {
        cpuAtGo = process.cpuUsage();
        await system.start((n) => {
          done += n;
        });
      } else if (m.type === "stop") {
        const cpu = process.cpuUsage(cpuAtGo);
        clearInterval(timer);
        await system.stop();
        send({
          type: "stopped",
          done,
          cpuMs: Math.round((cpu.user + cpu.system) / 1000),
          stats: system.stats?.() ?? {},
        });
        process.disconnect();
        setTimeout(() => process.exit(0), 50).unref();
      }
    } catch (err) {
      send({ type: "error", message: (err as Error).stack ?? String(err) });
      process.exit(1);
    }
  });
  send({ type: "ready" });
}

/**
 * Counts statements (and their client-side time) sent by every pg client in this process: the
 * round trips per task of each system, without pg_stat_statements (loading it needs a server
 * restart). All three systems use the one installed `pg`, so patching its Client covers them.
 */
export function countStatements(): () => Record<string, { calls: number; ms: number }> {
  const byKind = new Map<string, { calls: number; ms: number }>();
  const kindOf = (text: string) => {
    const t = text
      .replace(/--[^\n]*/g, " ")
      .replace(/\s+/g, " ")
      .trim();
    const verb =
      /^(?:with .*?\)\s*)?(select|insert|update|delete|begin|commit|rollback|listen|set|show)\b/i.exec(t)?.[1] ??
      t.split(" ")[0] ??
      "?";
    // The first table named is enough to tell a claim from a completion or an event write.
    const table = /\b(?:from|into|update)\s+([\w."]+)/i.exec(t)?.[1] ?? "";
    return `${verb.toUpperCase()} ${table}`.trim();
  };
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === "string" ? first : ((first as { text?: string })?.text ?? "");
    const key = kindOf(text);
    const t0 = performance.now();
    const note = () => {
      const e = byKind.get(key) ?? { calls: 0, ms: 0 };
      e.calls++;
      e.ms += performance.now() - t0;
      byKind.set(key, e);
    };
    // Pool.query passes a callback (and gets no promise back): time until it is called.
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const cb = args[last] as (...a: unknown[]) => unknown;
      args[last] = (...a: unknown[]) => {
        note();
        return cb(...a);
      };
      return original.apply(this, args);
    }
    const r = original.apply(this, args);
    if (r && typeof (r as Promise<unknown>).then === "function") (r as Promise<unknown>).then(note, note);
    else note();
    return r;
  };
  return () =>
    Object.fromEntries(
      [...byKind.entries()]
        .sort((a, b) => b[1].calls - a[1].calls)
        .map(([k, v]) => [k, { calls: v.calls, ms: Math.round(v.ms) }]),
    );
}
