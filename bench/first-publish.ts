// Publish → SEARCHABLE as a new user sees it on the embedded default: `npm start` with no
// DATABASE_URL in an empty data directory, then, as soon as /api/health answers, SAMPLES small
// documents published one at a time over HTTP, each followed by polling the document's state every
// POLL_MS until it reads SEARCHABLE (the first publish after start included). Latency is the
// publish request sent to the poll answer that reads SEARCHABLE. Target: p95 < 300 ms.
//   npm run bench:first-publish     SAMPLES=12 POLL_MS=20 GAP_MS=500 RUNS=2
// bench:index's publishToSearchable differs: publish() called in process, searchability read from
// the database every 10 ms, warm processes; here HTTP, the dashboard's own read of the state, a cold start.
import http from "node:http";
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn, type ChildProcess } from "node:child_process";
import { freePort, percentile, round3 } from "./db";

const SAMPLES = Number(process.env.SAMPLES ?? 12);
const POLL_MS = Number(process.env.POLL_MS ?? 20);
const GAP_MS = Number(process.env.GAP_MS ?? 500);
const RUNS = Number(process.env.RUNS ?? 2);
const TOKEN = "bench-first-publish-token-0123456789";
const ROOT = process.cwd();
const TARGET_P95_MS = 300;

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function request(port: number, method: string, p: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: p,
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(data ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    if (data) req.write(data);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startProduct(dataDir: string): Promise<{ child: ChildProcess; port: number; readyMs: number }> {
  const [port, dbPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", path.join(ROOT, "cli", "main.ts"), "start"],
    {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "ignore", process.stderr],
      env: {
        ...process.env,
        DATABASE_URL: "",
        PORT: String(port),
        EMBEDDED_DB_PORT: String(dbPort),
        INDEXWRIGHT_DATA_DIR: dataDir,
        INDEXWRIGHT_BOOTSTRAP_TOKEN: TOKEN,
        LOG_LEVEL: "warn",
        NEXT_TELEMETRY_DISABLED: "1",
      },
    },
  );
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    const ok = await request(port, "GET", "/api/health").then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { child, port, readyMs: performance.now() - started };
    if (Date.now() > deadline) throw new Error("npm start did not answer /api/health within 300 s");
    await sleep(100);
  }
}

async function stopProduct(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  process.kill(-child.pid!, "SIGTERM");
  const t = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 30_000);
  await exited;
  clearTimeout(t);
}

async function oneRun(run: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "iw-first-publish-"));
  const { child, port, readyMs } = await startProduct(dataDir);
  const ms: number[] = [];
  const publishMs: number[] = [];
  const phases: Record<string, unknown>[] = [];
  let polls = 0;
  try {
    for (let i = 0; i < SAMPLES; i++) {
      if (i > 0) await sleep(GAP_MS);
      const key = `note-${run}-${i}`;
      const t0 = performance.now();
      const r = await request(port, "POST", `/api/v1/tenants/acme/documents/${key}/versions`, {
        title: `Note ${i}`,
        contentType: "text/markdown",
        content: `# Note ${i}\n\nThe travel policy allows economy fares for trips under ${i + 3} hours, booked two weeks ahead.`,
      });
      if (r.status !== 202) throw new Error(`publish answered ${r.status}: ${r.body}`);
      publishMs.push(performance.now() - t0);
      for (;;) {
        await sleep(POLL_MS);
        polls++;
        const d = await request(port, "GET", `/api/v1/tenants/acme/documents/${key}`);
        const doc =
          d.status === 200 ? (JSON.parse(d.body) as { state: string; tasks?: Record<string, unknown>[] }) : null;
        if (doc?.state === "SEARCHABLE") {
          // Where the time went, from the task's own timestamps (database clock).
          const task = doc.tasks?.[0] ?? {};
          const at = (k: string) => (typeof task[k] === "string" ? Date.parse(task[k] as string) : NaN);
          const events = await request(port, "GET", `/api/v1/tasks/${String(task.id)}`).then(
            (t) => (JSON.parse(t.body) as { events?: { at: string; kind: string }[] }).events ?? [],
          );
          const created = at("createdAt");
          phases.push({
            taskMs: at("finishedAt") - created,
            events: events.map((e) => `${e.kind}+${Date.parse(e.at) - created}`).join(" "),
          });
          break;
        }
        if (performance.now() - t0 > 60_000) throw new Error(`${key} not SEARCHABLE after 60 s`);
      }
      ms.push(performance.now() - t0);
    }
  } finally {
    await stopProduct(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    readySeconds: round3(readyMs / 1000),
    firstMs: round3(ms[0]),
    p50Ms: round3(percentile(sorted, 50)),
    p95Ms: round3(percentile(sorted, 95)),
    maxMs: round3(sorted[sorted.length - 1]),
    samplesMs: ms.map(round3),
    publishRequestMs: publishMs.map(round3),
    taskPhasesMs: phases,
    pollsPerPublish: round3(polls / SAMPLES),
  };
}

async function main() {
  const runs = [];
  for (let run = 0; run < RUNS; run++) {
    const r = await oneRun(run);
    console.error(`[bench] run ${run + 1}: first ${r.firstMs} ms, p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms`);
    runs.push(r);
  }
  const worstP95 = Math.max(...runs.map((r) => r.p95Ms));
  console.log(
    JSON.stringify({
      bench: "first-publish",
      method: `npm start on the embedded database in an empty data directory, per run; ${SAMPLES} small Markdown documents published over HTTP one at a time (${GAP_MS} ms apart), the first as soon as /api/health answers; each followed by GET of the document every ${POLL_MS} ms until it reads SEARCHABLE; latency is publish sent to that answer`,
      samples: SAMPLES,
      pollMs: POLL_MS,
      runs,
      worstP95Ms: worstP95,
      targetP95Ms: TARGET_P95_MS,
      meetsTarget: worstP95 < TARGET_P95_MS,
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
