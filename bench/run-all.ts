// Runs every benchmark one after another and rewrites bench/RESULTS.md from their figures.
//
//   npm run bench                          all of them (queue, index, search, dashboard, migration, fairness, first-publish)
//   npm run bench -- queue search          only these
//   BENCH_DATABASE_URL=... npm run bench   the server every bench creates its own database on
//   npm run bench -- --render-only         runs nothing: RESULTS.md again from bench/results/*.json
//                                          (a bench run on its own, e.g. `npm run bench:migration >
//                                          out; tail -1 out > bench/results/migration.json`)
//
// Each bench is its own `npm run bench:<name>` process; this runner only starts it, passes its
// stderr through, and reads the JSON object on the last line of its stdout. A bench that fails or
// prints no such line is reported as such in RESULTS.md (the others still run). The raw objects
// are kept in bench/results/<name>.json (not committed). The last line of this runner's own
// output is one JSON object as well: which benches ran, how long, and whether they succeeded.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Figures of a bench shown in RESULTS.md, in the order its JSON gives them; the rest stay in its JSON. */
const FIGURES_SHOWN = 100;

const ROOT = path.resolve(import.meta.dirname, "..");
const ALL = ["queue", "index", "search", "dashboard", "migration", "fairness", "first-publish"] as const;
type Json = Record<string, unknown>;
export type Outcome = {
  name: string;
  ok: boolean;
  seconds: number;
  exitCode: number | null;
  result: Json | null;
  problem: string | null;
  lastLineJson: boolean;
  /** A section carried over verbatim from the previous RESULTS.md (no raw result on this machine). */
  kept?: { lines: string[]; measured: string };
  /** When a raw result read from bench/results/ was written (results without a date of their own). */
  measured?: string;
};

/** The sections of an earlier RESULTS.md by bench name, with the "measured" cell of its status row. */
export function previousSections(markdown: string): Map<string, { lines: string[]; measured: string }> {
  const lines = markdown.split("\n");
  const out = new Map<string, { lines: string[]; measured: string }>();
  for (let i = 0; i < lines.length; i++) {
    const m = /^## (\w+)$/.exec(lines[i]);
    if (!m || !(ALL as readonly string[]).includes(m[1])) continue;
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith("## ") && !lines[j].startsWith("# ")) j++;
    const row = lines
      .find((l) => l.startsWith(`| ${m[1]} | `))
      ?.split("|")
      .map((c) => c.trim());
    out.set(m[1], {
      lines: lines
        .slice(i + 1, j)
        .join("\n")
        .trim()
        .split("\n"),
      measured: row?.[3] ?? "",
    });
    i = j - 1;
  }
  return out;
}

const say = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

function selected(): string[] {
  if (process.argv.includes("--render-only")) return [];
  const args = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  if (args.length === 0) return [...ALL];
  const unknown = args.filter((a) => !(ALL as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`BENCH_UNKNOWN: no bench named ${unknown.join(", ")} (known: ${ALL.join(", ")})`);
  return args;
}

/** The JSON object on the last non-empty line; failing that, the last multi-line object (flagged). */
export function lastJson(stdout: string): { value: Json | null; lastLine: boolean } {
  const lines = stdout
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
  const last = lines[lines.length - 1];
  try {
    const v = JSON.parse(last ?? "");
    if (v && typeof v === "object" && !Array.isArray(v)) return { value: v, lastLine: true };
  } catch {
    // fall through: an older bench may still print indented JSON
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i] !== "{") continue;
    try {
      const v = JSON.parse(lines.slice(i).join("\n"));
      if (v && typeof v === "object" && !Array.isArray(v)) return { value: v, lastLine: false };
    } catch {
      return { value: null, lastLine: false };
    }
  }
  return { value: null, lastLine: false };
}

function runBench(name: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn("npm", ["run", "-s", `bench:${name}`], {
      cwd: ROOT,
      env: process.env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      process.stderr.write(d);
    });
    child.on("close", (code) => {
      const seconds = Math.round((Date.now() - t0) / 100) / 10;
      const { value, lastLine } = lastJson(out);
      let problem: string | null = null;
      if (code !== 0) problem = `exited with code ${code}`;
      else if (!value) problem = "printed no JSON object on its last line";
      else if (!lastLine) problem = "its JSON object is spread over several lines (read anyway)";
      resolve({
        name,
        ok: code === 0 && value !== null,
        seconds,
        exitCode: code,
        result: value,
        problem,
        lastLineJson: lastLine,
      });
    });
  });
}

const fmt = (v: unknown): string => {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number")
    return Number.isInteger(v) ? v.toLocaleString("en-US") : String(Math.round(v * 1000) / 1000);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return v.map(fmt).join(", ");
  return String(v);
};
const cell = (v: unknown) => fmt(v).replace(/\|/g, "\\|").replace(/\n/g, " ");

/** Numbers and yes/no answers of a result, by dotted path; what is not a figure is left out. */
function figures(o: unknown, prefix = "", out: [string, unknown][] = []): [string, unknown][] {
  if (o === null || typeof o !== "object") return out;
  for (const [k, v] of Object.entries(o as Json)) {
    if (["bench", "method", "machine", "versions", "settings", "runs", "date"].includes(k) && prefix === "") continue;
    const p = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "number" || typeof v === "boolean") out.push([p, v]);
    else if (Array.isArray(v) && v.every((x) => typeof x === "number") && v.length <= 8) out.push([p, v]);
    else if (v && typeof v === "object" && !Array.isArray(v)) figures(v, p, out);
  }
  return out;
}

function queueSection(r: Json): string[] {
  const L: string[] = [];
  const tp = (r.throughput ?? {}) as Record<
    string,
    Record<string, { perSecond: number[]; median: number; spreadPct: number }>
  >;
  const rg = (r.ratioVsGraphileWorker ?? {}) as Record<string, number | null>;
  const rb = (r.ratioVsPgBoss ?? {}) as Record<string, number | null>;
  const settings = (r.settings ?? {}) as Json;
  L.push(
    `Tasks per run: ${fmt(settings.tasks)}; concurrency ${fmt(settings.concurrency)} per process; ${fmt(settings.rounds)} rounds per system, alternating.`,
    "",
  );
  L.push("| processes | system | tasks/s per run | median | spread | ours ÷ theirs |", "|---|---|---|---|---|---|");
  for (const [p, bySystem] of Object.entries(tp)) {
    for (const [system, t] of Object.entries(bySystem)) {
      const ratio = system === "graphile-worker" ? rg[p] : system === "pg-boss" ? rb[p] : null;
      L.push(
        `| ${p} | ${system} | ${cell(t.perSecond)} | ${cell(t.median)} | ±${cell(t.spreadPct)} % | ${ratio === null || ratio === undefined ? "" : cell(ratio) + "×"} |`,
      );
    }
  }
  const prepared = r.unnamedStatements as
    { vsGraphileWorker: Json; vsPgBoss: Json; vsDefault: Json } | null | undefined;
  if (prepared) {
    L.push(
      "",
      `indexwright-unnamed (unnamed statements, as on the embedded database or behind PgBouncer in transaction mode): ÷ graphile-worker ${Object.entries(
        prepared.vsGraphileWorker,
      )
        .map(([p, v]) => `${p}p ${fmt(v)}×`)
        .join(", ")}; ÷ pg-boss ${Object.entries(prepared.vsPgBoss)
        .map(([p, v]) => `${p}p ${fmt(v)}×`)
        .join(", ")}; ÷ the default ${Object.entries(prepared.vsDefault)
        .map(([p, v]) => `${p}p ${fmt(v)}×`)
        .join(", ")}.`,
    );
  }
  const base = r.vsBaseline as { dir: string; ratio: Json } | null | undefined;
  if (base) {
    const rev = ((r.versions ?? {}) as Json)["indexwright-baseline"];
    L.push(
      "",
      `This engine ÷ the baseline checkout (${cell(rev)}), same run: ${Object.entries(base.ratio)
        .map(([p, v]) => `${p}p ${fmt(v)}×`)
        .join(", ")}.`,
    );
  }
  const runs = (r.runs ?? []) as Json[];
  if (runs.length) {
    L.push(
      "",
      "Per run (database counters of this bench's database only; CPU of the worker processes and of the PostgreSQL backends serving them):",
      "",
      "| processes | round | system | tasks/s | commits per task | rows written per task | CPU ms per task, workers | CPU ms per task, database |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const x of runs) {
      const cpu = (x.cpuMsPerTask ?? {}) as Json;
      L.push(
        `| ${cell(x.processes)} | ${cell(x.round)} | ${cell(x.system)} | ${cell(x.perSecond)} | ${cell(x.commitsPerTask)} | ${cell(x.rowsWrittenPerTask)} | ${cell(cpu.workers)} | ${cell(cpu.database)} |`,
      );
    }
  }
  const lat = (r.claimLatency ?? {}) as Json;
  const all = (lat.claimMsAllRuns ?? {}) as Json;
  L.push(
    "",
    `Claim latency with ${fmt(r.finishedTasksInTable)} finished tasks in the table: p50 ${fmt(all.p50)} ms, p95 ${fmt(all.p95)} ms, p99 ${fmt(all.p99)} ms (${fmt(all.samples)} claims; ${cell(lat.method)}).`,
  );
  const targets = (r.targets ?? {}) as Json;
  const met = (r.met ?? {}) as Json;
  L.push("", "| target | wanted | measured | met |", "|---|---|---|---|");
  L.push(
    `| ours ÷ graphile-worker | ≥ ${fmt(targets.ratioVsGraphileWorker)} | ${Object.entries(rg)
      .map(([p, v]) => `${p}p: ${fmt(v)}`)
      .join(", ")} | ${fmt(met.ratioVsGraphileWorker)} |`,
  );
  L.push(
    `| ours ÷ pg-boss | ≥ ${fmt(targets.ratioVsPgBoss)} | ${Object.entries(rb)
      .map(([p, v]) => `${p}p: ${fmt(v)}`)
      .join(", ")} | ${fmt(met.ratioVsPgBoss)} |`,
  );
  L.push(`| claim p95 | < ${fmt(targets.claimP95Ms)} ms | ${fmt(r.claimP95Ms)} ms | ${fmt(met.claimP95Ms)} |`);
  return L;
}

/** The hand-written notes after the generated sections, which every rewrite carries over unchanged. */
export function notesOf(markdown: string): string {
  const at = markdown.indexOf("\n# Measurement notes");
  return at < 0 ? "" : markdown.slice(at + 1);
}

export function render(outcomes: Outcome[], started: Date, notes = ""): string {
  const L: string[] = [];
  // The machine of a bench measured by this run: kept sections and earlier raw results carry their own.
  const machine = (outcomes.find((o) => o.result?.machine && !o.problem)?.result?.machine ??
    outcomes.find((o) => o.result?.machine)?.result?.machine ??
    {}) as Json;
  L.push("# Benchmark results", "");
  L.push(
    `Written by \`npm run bench\` (bench/run-all.ts) on ${started.toISOString().slice(0, 10)} at ${started.toISOString().slice(11, 16)} UTC; do not edit by hand.`,
    "",
  );
  L.push("## Method", "");
  L.push(
    "Each bench creates its own database on `BENCH_DATABASE_URL` (default `postgresql://postgres@127.0.0.1:5432/postgres`), applies the migrations, seeds what it measures, prints one JSON object as the last line of its output and drops the database. The runner starts them one after another and reads that line; the raw objects are in `bench/results/` after a run. Figures are wall-clock on the machine below. It may be shared with other work while a bench runs, so read a figure together with its spread, and compare systems only within one run (the queue bench alternates them for that reason).",
    "",
  );
  L.push(
    `Machine: ${cell(machine.cpus ?? os.cpus().length)} CPUs (${cell(machine.cpuModel ?? os.cpus()[0]?.model)}), ${cell(machine.memoryGiB ?? Math.round(os.totalmem() / 2 ** 30))} GiB memory, load ${cell(machine.loadAverage1m ?? os.loadavg()[0])} when its bench started (a section kept from an earlier run names its own machine where its bench records one); Node ${cell(machine.node ?? process.version)}; PostgreSQL ${cell(machine.postgres)}.`,
    "",
  );
  L.push("| bench | result | measured | seconds |", "|---|---|---|---|");
  for (const o of outcomes) {
    const when = typeof o.result?.date === "string" ? o.result.date.slice(0, 16).replace("T", " ") + " UTC" : "";
    L.push(
      `| ${o.name} | ${o.ok ? (o.problem ? `ok (${o.problem})` : "ok") : `failed: ${o.problem}`} | ${when || o.measured || o.kept?.measured || ""} | ${o.seconds || ""} |`,
    );
  }
  for (const o of outcomes) {
    L.push("", `## ${o.name}`, "");
    if (o.kept) {
      L.push(...o.kept.lines);
      continue;
    }
    if (!o.result) {
      L.push(`No figures: the bench ${o.problem}.`);
      continue;
    }
    if (typeof o.result.method === "string") L.push(`Method: ${o.result.method}`, "");
    const versions = o.result.versions as Json | undefined;
    if (versions)
      L.push(
        `Versions: ${Object.entries(versions)
          .map(([k, v]) => `${k} ${cell(v)}`)
          .join(", ")}.`,
        "",
      );
    if (o.name === "queue") L.push(...queueSection(o.result));
    else {
      const f = figures(o.result);
      L.push("| figure | value |", "|---|---|");
      for (const [k, v] of f.slice(0, FIGURES_SHOWN)) L.push(`| ${cell(k)} | ${cell(v)} |`);
      if (f.length > FIGURES_SHOWN) L.push(`| … | ${f.length - FIGURES_SHOWN} more in bench/results/${o.name}.json |`);
    }
  }
  return L.join("\n") + "\n" + (notes ? "\n" + notes.trimEnd() + "\n" : "");
}

async function main() {
  const names = selected();
  const started = new Date();
  const outcomes: Outcome[] = [];
  fs.mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  for (const name of names) {
    say(`bench:${name} …`);
    const o = await runBench(name);
    outcomes.push(o);
    if (o.result)
      fs.writeFileSync(path.join(ROOT, "bench", "results", `${name}.json`), JSON.stringify(o.result, null, 2) + "\n");
    say(`bench:${name} ${o.ok ? "done" : "FAILED"} in ${o.seconds} s${o.problem ? ` (${o.problem})` : ""}`);
  }
  // A partial run (named benches only) keeps the sections of the others: from their raw results
  // when this machine has them, else verbatim from the RESULTS.md being replaced.
  const previous = names.length < ALL.length ? ALL.filter((n) => !names.includes(n)) : [];
  const resultsMd = path.join(ROOT, "bench", "RESULTS.md");
  const oldMarkdown = fs.existsSync(resultsMd) ? fs.readFileSync(resultsMd, "utf8") : "";
  const oldSections = previousSections(oldMarkdown);
  for (const n of previous) {
    const file = path.join(ROOT, "bench", "results", `${n}.json`);
    if (fs.existsSync(file)) {
      const measured = fs.statSync(file).mtime.toISOString().slice(0, 16).replace("T", " ") + " UTC";
      outcomes.push({
        name: n,
        ok: true,
        seconds: 0,
        exitCode: 0,
        result: JSON.parse(fs.readFileSync(file, "utf8")),
        problem: "from an earlier run",
        lastLineJson: true,
        measured,
      });
    } else if (oldSections.has(n))
      outcomes.push({
        name: n,
        ok: true,
        seconds: 0,
        exitCode: 0,
        result: null,
        problem: "kept from the previous RESULTS.md",
        lastLineJson: true,
        kept: oldSections.get(n),
      });
  }
  outcomes.sort((a, b) => ALL.indexOf(a.name as (typeof ALL)[number]) - ALL.indexOf(b.name as (typeof ALL)[number]));
  fs.writeFileSync(path.join(ROOT, "bench", "RESULTS.md"), render(outcomes, started, notesOf(oldMarkdown)));
  say("bench/RESULTS.md rewritten");
  console.log(
    JSON.stringify({
      bench: "all",
      date: started.toISOString(),
      results: Object.fromEntries(outcomes.map((o) => [o.name, { ok: o.ok, seconds: o.seconds, problem: o.problem }])),
    }),
  );
  process.exit(outcomes.every((o) => o.ok) ? 0 : 1);
}

// Run only as a script, so render() and lastJson() can be imported to check a result by hand.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
