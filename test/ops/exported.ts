import { spawnSync } from "node:child_process";
import { startWorkerMetrics } from "../../worker/metrics-server";

// What the product exports, read from its own endpoints rather than from a hand-kept list: the
// dashboard's /api/metrics through its route handler, a worker's /metrics over HTTP.

/** Scrapes the dashboard's /api/metrics in-process; DATABASE_URL and INDEXWRIGHT_BOOTSTRAP_TOKEN must be set. */
export async function scrapeDashboard(token: string): Promise<string> {
  const { GET } = await import("../../app/api/metrics/route");
  const res = await GET(
    new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${token}` } }),
    { params: Promise.resolve({}) },
  );
  if (res.status !== 200) throw new Error(`/api/metrics answered ${res.status}: ${await res.text()}`);
  return res.text();
}

/** Starts a worker metrics server on a free port, scrapes /metrics once and stops it. */
export async function scrapeWorker(): Promise<string> {
  const server = (await startWorkerMetrics({ WORKER_METRICS_PORT: "0", WORKER_METRICS_HOST: "127.0.0.1" }))!;
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    if (res.status !== 200) throw new Error(`worker /metrics answered ${res.status}`);
    return await res.text();
  } finally {
    await server.close();
  }
}

/** Every series name an exposition declares: a histogram's `_bucket`, `_sum` and `_count` included. */
export function seriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === "histogram") for (const s of ["_bucket", "_sum", "_count"]) names.add(name + s);
    else if (type === "summary") for (const s of ["", "_sum", "_count"]) names.add(name + s);
    else names.add(name);
  }
  return names;
}

/** Runs promtool (Debian's `prometheus` package; .ci/system-deps.sh installs it); fails loudly when it is missing. */
export function promtool(args: string[], input?: string): { status: number; output: string } {
  const r = spawnSync("promtool", args, { input, encoding: "utf8", timeout: 60_000 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === "ENOENT") {
    throw new Error(
      "promtool not found: install Debian's `prometheus` package (apt-get install -y prometheus; .ci/system-deps.sh does)",
    );
  }
  if (r.error) throw r.error;
  return { status: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}

const PROMQL_WORDS = new Set([
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "Inf",
  "NaN",
  "inf",
  "nan",
]);

/**
 * The metric names a PromQL expression selects: identifiers left once strings, label matchers,
 * ranges, grouping clauses and dashboard variables are taken out, less function names (followed
 * by a parenthesis) and keywords. Enough for the expressions we write, not a PromQL parser.
 */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\$\{?\w+\}?/g, " ");
  const names = [...bare.matchAll(/(?<![\w.:$])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)]
    .map((m) => m[1])
    .filter((w) => !PROMQL_WORDS.has(w));
  return [...new Set(names)];
}
