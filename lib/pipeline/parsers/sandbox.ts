// Parsing in a sandbox: every document is parsed in a pool of child processes, never on the
// worker's own event loop or heap, so one tenant's hostile file cannot stall heartbeats, other
// slots or other tenants' tasks, nor take the worker down with an out-of-memory crash.
//
// Child processes, not worker threads: a thread's resourceLimits share the process, and a heap
// exhausted inside V8's background compiler is fatal to the whole process (measured: a 200 MB
// DOCX under a 64 MiB thread heap aborted the worker). A child over its --max-old-space-size
// dies alone. Each parse has a wall-clock limit (past it the child is killed: a synchronous
// parser cannot be interrupted any other way), and the child checks the output limits and the
// inflated / decoded sizes of DOCX and PDF (inflate.ts) itself. Breaking any of them is
// PARSE_LIMIT_EXCEEDED naming the limit. A child that was killed or died is replaced at once,
// so the next parse does not pay for its start (~1 s: it loads the parsers). Children are
// reused between parses and never keep the worker alive on their own (unref).

import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, type Config } from "../../config";
import { PipelineError, type Section } from "./common";
import { limitExceeded, type ParseLimits, type ParseReply, type ParseRequest } from "./limits";

export type SandboxParseOptions = {
  signal?: AbortSignal;
  onTruncated?: (info: { totalPages: number; parsedPages: number }) => void;
  /** Per-call overrides of the pool's limits (the process count and heap are the pool's own). */
  limits?: Partial<Omit<ParseLimits, "processes" | "heapMb">>;
};

/** The parse limits a configuration sets (PARSE_*, DOCX_MAX_INFLATED_BYTES, PDF_*). */
export function parseLimitsOf(cfg: Config): ParseLimits {
  return {
    processes: cfg.PARSE_PROCESSES,
    heapMb: cfg.PARSE_MAX_HEAP_MB,
    timeoutMs: cfg.PARSE_TIMEOUT_MS,
    maxOutputBytes: cfg.PARSE_MAX_OUTPUT_BYTES,
    maxSections: cfg.PARSE_MAX_SECTIONS,
    maxInflatedBytes: cfg.DOCX_MAX_INFLATED_BYTES,
    maxDecodedBytes: cfg.PDF_MAX_DECODED_BYTES,
    maxPages: cfg.PDF_MAX_PAGES,
  };
}

type Job = {
  id: number;
  contentType: string;
  content: Uint8Array;
  limits: ParseLimits;
  resolve: (s: Section[]) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  onTruncated?: SandboxParseOptions["onTruncated"];
};

type Child = {
  child: ChildProcess;
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  gone: boolean;
  stderr: string;
  started: Promise<void>;
  settled: () => void;
};

let nextId = 1;

export class ParsePool {
  private children: Child[] = [];
  private readonly queue: Job[] = [];
  private closed = false;
  /** Processes started since the pool was made, replacements included (tests read it). */
  started = 0;

  constructor(readonly limits: ParseLimits) {}

  get alive(): number {
    return this.children.length;
  }

  /** Live processes that have loaded the parsers. */
  get loaded(): number {
    return this.children.filter((c) => c.ready).length;
  }

  /** Process ids of the live parse processes (benchmarks read their memory). */
  get pids(): number[] {
    return this.children.flatMap((c) => (c.child.pid === undefined ? [] : [c.child.pid]));
  }

  parse(contentType: string, content: Uint8Array, options: SandboxParseOptions = {}): Promise<Section[]> {
    options.signal?.throwIfAborted();
    if (this.closed) throw new Error("the parse pool is closed");
    return new Promise<Section[]>((resolve, reject) => {
      const job: Job = {
        id: nextId++,
        contentType,
        content,
        limits: { ...this.limits, ...options.limits },
        resolve,
        reject,
        signal: options.signal,
        onTruncated: options.onTruncated,
      };
      if (job.signal) {
        job.onAbort = () => this.abort(job);
        job.signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Starts every process now, so no parse waits for one to load the parsers (~1 s). */
  warm(): this {
    while (!this.closed && this.children.length < this.limits.processes) this.spawn();
    return this;
  }

  /**
   * Resolves once every process started so far has loaded the parsers (or died, or `maxMs`
   * passed): the worker waits for it before its first claim, so no lease is spent on a start.
   */
  async ready(maxMs = 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
    await Promise.race([Promise.all(this.children.map((c) => c.started)), cap]);
    clearTimeout(timer);
  }

  /** Stops every process; queued and running parses reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) this.settle(j, () => j.reject(new Error("the parse pool was closed")));
    await Promise.all(this.children.map((t) => this.kill(t, new Error("the parse pool was closed"), false)));
  }

  /** Closes idle processes now and busy ones after their parse; for a pool replaced by another. */
  retire(): void {
    this.closed = true;
    for (const t of this.children) if (!t.job) void this.kill(t, null, false);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let t = this.children.find((x) => !x.job && !x.gone);
      if (!t) {
        if (this.children.length >= this.limits.processes) return;
        t = this.spawn();
      }
      const job = this.queue.shift()!;
      t.job = job;
      this.busy(t);
      t.child.send({
        id: job.id,
        contentType: job.contentType,
        content: job.content,
        limits: job.limits,
      } satisfies ParseRequest);
      if (t.ready) this.startClock(t);
      // A process that never gets to parse (a broken installation) must not hold the task forever.
      else
        t.timer = setTimeout(
          () => void this.kill(t, new Error("the parse process did not start within 30 s"), false),
          30_000,
        );
    }
  }

  private spawn(): Child {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "child-boot.mjs");
    const child = fork(file, [], {
      // Not the worker's own flags (a debugger port, the worker's heap size): only the limits.
      execArgv: [
        `--max-old-space-size=${this.limits.heapMb}`,
        `--max-semi-space-size=${Math.min(32, Math.max(1, Math.floor(this.limits.heapMb / 32)))}`,
      ],
      serialization: "advanced", // structured clone: the bytes cross as bytes, not base64 JSON
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let settled = () => {};
    const started = new Promise<void>((resolve) => (settled = resolve));
    const t: Child = { child, ready: false, job: null, timer: null, gone: false, stderr: "", started, settled };
    this.children.push(t);
    this.started++;
    this.idle(t);
    // Only the tail is kept: V8's "heap out of memory" report is how an OOM is told from a crash.
    child.stderr?.on("data", (c: Buffer) => (t.stderr = (t.stderr + c.toString("utf8")).slice(-4096)));
    child.on("message", (m: ParseReply | { kind: "ready" }) => this.onMessage(t, m));
    child.on("error", (e) => void this.kill(t, new Error(`the parse process failed: ${e.message}`), true));
    child.on("exit", (code, signal) => {
      const job = t.job;
      const oom = /heap out of memory|Reached heap limit/i.test(t.stderr);
      const err =
        job && oom
          ? limitExceeded("heap", job.limits)
          : new Error(
              `the parse process exited (${signal ?? `code ${code}`})${t.stderr ? `: ${t.stderr.trim().split("\n")[0]}` : ""}`,
            );
      void this.kill(t, err, true);
    });
    return t;
  }

  /** A child that is not parsing must not keep the worker process alive. */
  private idle(t: Child): void {
    t.child.unref();
    t.child.channel?.unref();
    (t.child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  }

  private busy(t: Child): void {
    t.child.ref();
    t.child.channel?.ref();
  }

  private startClock(t: Child): void {
    const job = t.job!;
    if (t.timer) clearTimeout(t.timer);
    const ms = Math.min(Math.max(0, job.limits.timeoutMs), 2 ** 31 - 1);
    t.timer = setTimeout(() => void this.kill(t, limitExceeded("time", job.limits), true), ms);
  }

  private onMessage(t: Child, m: ParseReply | { kind: "ready" }): void {
    if (m.kind === "ready") {
      t.ready = true;
      t.settled();
      if (t.job) this.startClock(t);
      return;
    }
    const job = t.job;
    if (!job || m.id !== job.id) return;
    if (m.kind === "truncated") {
      job.onTruncated?.({ totalPages: m.totalPages, parsedPages: m.parsedPages });
      return;
    }
    if (t.timer) clearTimeout(t.timer);
    t.timer = null;
    t.job = null;
    this.idle(t);
    if (m.kind === "ok") this.settle(job, () => job.resolve(m.sections));
    else this.settle(job, () => job.reject(replyError(m)));
    // A retired pool still serves what was queued before it was replaced.
    if (this.closed && this.queue.length === 0) void this.kill(t, null, false);
    else this.dispatch();
  }

  private abort(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(job, () => job.reject(job.signal!.reason));
      return;
    }
    // A running parse cannot be interrupted inside a synchronous step: the process goes.
    const t = this.children.find((x) => x.job === job);
    if (t) void this.kill(t, job.signal!.reason, true);
  }

  /** Ends a process, failing its parse (if any) with `err`, and starts a replacement when asked. */
  private async kill(t: Child, err: unknown, replace: boolean): Promise<void> {
    if (t.gone) return;
    t.gone = true;
    t.settled();
    if (t.timer) clearTimeout(t.timer);
    this.children = this.children.filter((x) => x !== t);
    const job = t.job;
    t.job = null;
    if (job) this.settle(job, () => job.reject(err));
    const ended =
      t.child.exitCode !== null || t.child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => t.child.once("exit", () => resolve()));
    t.child.kill("SIGKILL");
    // Warm the replacement of a process that had been working, so the next parse does not wait
    // for it; one that never started is not restarted in a loop, only on demand (dispatch).
    if (replace && t.ready && (!this.closed || this.queue.length > 0) && this.children.length < this.limits.processes)
      this.spawn();
    this.dispatch();
    await ended;
  }

  private settle(job: Job, fn: () => void): void {
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    fn();
  }
}

function replyError(m: Extract<ParseReply, { kind: "error" }>): Error {
  if (m.code) return new PipelineError(m.code as PipelineError["code"], m.message);
  return Object.assign(new Error(m.message), { name: m.name });
}

let shared: ParsePool | null = null;

/** The process's parse pool; made on first use with the configured limits. */
export function parsePool(): ParsePool {
  shared ??= new ParsePool(parseLimitsOf(loadConfig()));
  return shared;
}

/**
 * Sets the limits of the process's parse pool (the worker does at start). A pool with other
 * limits is replaced: its idle processes end now, busy ones after their parse.
 */
export function configureParsePool(limits: Partial<ParseLimits>): ParsePool {
  const base = shared?.limits ?? parseLimitsOf(loadConfig());
  const next = { ...base, ...limits };
  if (shared && JSON.stringify(shared.limits) === JSON.stringify(next)) return shared;
  shared?.retire();
  shared = new ParsePool(next);
  return shared;
}
