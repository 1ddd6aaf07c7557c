// Loaded into a benchmark's worker process with `--import` (after tsx). It counts what the real
// worker asks of its embedder and of PostgreSQL, and writes the counts to BENCH_COUNTS_FILE when the
// process exits. Counting here, instead of inferring from the tables afterwards, also sees retries,
// fence checks and statements that changed nothing. Nothing in the product loads this file.
import { writeFileSync } from "node:fs";
import pg from "pg";
import { LocalEmbedder } from "../lib/embedding";

type Kind = { n: number; ms: number };
const counts = {
  texts: 0,
  embedCalls: 0,
  embedMs: 0,
  statements: 0,
  /** COMMITs of explicit transactions plus writes sent outside one: each is a WAL flush. */
  writeCommits: 0,
  transactions: 0,
  rollbacks: 0,
  dbMs: 0,
  byKind: {} as Record<string, Kind>,
};

const file = process.env.BENCH_COUNTS_FILE;
if (file) process.on("exit", () => writeFileSync(file, JSON.stringify(counts)));

const embed = LocalEmbedder.prototype.embed;
LocalEmbedder.prototype.embed = async function (this: LocalEmbedder, texts: string[], signal: AbortSignal) {
  const t = performance.now();
  try {
    return await embed.call(this, texts, signal);
  } finally {
    counts.texts += texts.length;
    counts.embedCalls++;
    counts.embedMs += performance.now() - t;
  }
};

/** A short label per statement: its verb and the table it starts on, e.g. "INSERT chunks". */
function kindOf(text: string): string {
  const s = text.replace(/--[^\n]*/g, " ").trim();
  const verb = (/^[a-z]+/i.exec(s)?.[0] ?? "?").toUpperCase();
  if (verb === "BEGIN" || verb === "COMMIT" || verb === "ROLLBACK") return verb;
  // A CTE is labelled by the first table it writes, else by the first one it reads.
  const write = /\b(UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+([a-z_]+)/i.exec(s);
  if (verb === "WITH" && write) return `WITH ${write[1].split(/\s+/)[0].toUpperCase()} ${write[2]}`;
  const table = /\b(?:FROM|INTO|UPDATE)\s+([a-z_]+)/i.exec(s)?.[1] ?? "";
  return `${verb} ${table}`.trim();
}

const inTx = new WeakSet<object>();
type QueryFn = (...args: unknown[]) => unknown;
const query = pg.Client.prototype.query as unknown as QueryFn;
(pg.Client.prototype as unknown as { query: QueryFn }).query = function (this: object, ...args: unknown[]) {
  const first = args[0] as string | { text?: string; submit?: unknown };
  const text = typeof first === "string" ? first : typeof first?.submit === "function" ? "" : (first?.text ?? "");
  const kind = kindOf(text);
  counts.statements++;
  if (kind === "BEGIN") {
    inTx.add(this);
    counts.transactions++;
  } else if (kind === "COMMIT") {
    inTx.delete(this);
    counts.writeCommits++;
  } else if (kind === "ROLLBACK") {
    inTx.delete(this);
    counts.rollbacks++;
  } else if (!inTx.has(this) && /^(INSERT|UPDATE|DELETE)|^WITH (INSERT|UPDATE|DELETE)/.test(kind)) {
    counts.writeCommits++;
  }
  const t = performance.now();
  const done = () => {
    const ms = performance.now() - t;
    const k = (counts.byKind[kind] ??= { n: 0, ms: 0 });
    k.n++;
    k.ms += ms;
    counts.dbMs += ms;
  };
  const last = args[args.length - 1];
  if (typeof last === "function") {
    args[args.length - 1] = (...cbArgs: unknown[]) => {
      done();
      return (last as QueryFn)(...cbArgs);
    };
    return query.apply(this, args);
  }
  const out = query.apply(this, args);
  if (out && typeof (out as Promise<unknown>).then === "function") (out as Promise<unknown>).then(done, done);
  return out;
};
