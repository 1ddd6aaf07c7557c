// Dashboard API benchmark, through HTTP against a production server: `next build` once, then the
// project's own web server (cli/web.ts, what `npm start` runs for the dashboard) on a database
// seeded with DOCS documents and TASKS tasks (mostly finished, a realistic tail of due, running,
// retrying and dead ones, some drift). Every GET route of the route table the dashboard reads,
// with its filters and cursors, and the dashboard's search, is timed under CLIENTS concurrent
// clients signed in with an admin session cookie. Target: p95 < 150 ms for every route. The CSV/JSON
// exports (downloads of a whole list) are not timed here; they are named in getRoutesNotTimed.
//   npm run bench:dashboard       DOCS=100000 TASKS=1000000 CLIENTS=8 REQUESTS=160
//   BENCH_SKIP_BUILD=1            reuse the existing .next build
//   BENCH_KEEP=1                  keep the seeded database (to EXPLAIN ANALYZE on it)
//   BENCH_REUSE_DB=<name>         measure a kept database again (its pending migrations applied first)
import pg from "pg";
import http from "node:http";
import path from "node:path";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { spawn, type ChildProcess } from "node:child_process";
import { withBenchDatabase, percentile, round3, machineFacts, procCpuMs, freePort } from "./db";
import { ROUTES } from "../lib/http/routes";
import { rollUpTaskOutcomes } from "../lib/queue/snapshots";
import { rollUpFreshness } from "../lib/slo/rollup";
import { DEFAULT_OBJECTIVE, DEFAULT_TARGET_SECONDS, DEFAULT_WINDOW_DAYS } from "../lib/slo/limits";

const FRESHNESS_DEFAULTS = {
  objective: DEFAULT_OBJECTIVE,
  targetSeconds: DEFAULT_TARGET_SECONDS,
  windowDays: DEFAULT_WINDOW_DAYS,
};
import { LOCAL_MODEL } from "../lib/pipeline/local-embedder";
import { migrate } from "../lib/db/migrate";
import { spaceIndexName, spaceIndexSql } from "../lib/spaces/indexes";

const DOCS = Number(process.env.DOCS ?? 100_000);
const TASKS = Number(process.env.TASKS ?? 1_000_000);
const CLIENTS = Number(process.env.CLIENTS ?? 8);
const REQUESTS = Number(process.env.REQUESTS ?? 160);
const WARMUP_ROUNDS = 2;
const SEARCH_TENANT = "t3";
const TOKEN = "bench-dashboard-token-0123456789";
const ROOT = process.cwd();
const TARGET_P95_MS = 150;
const REUSE = process.env.BENCH_REUSE_DB || undefined;

const sql = String.raw;

async function seed(pool: pg.Pool) {
  const perDoc = Math.max(1, Math.ceil(TASKS / DOCS));
  await pool.query(`INSERT INTO tenants (id, name) SELECT 't' || i, 'Tenant ' || i FROM generate_series(0, 9) i`);
  // Every thousandth document deleted; the rest updated one a second into the past, newest first.
  await pool.query(
    sql`INSERT INTO documents (id, tenant_id, key, title, business_version, updated_at, deleted_at)
     SELECT gen_random_uuid(), 't' || (i % 10), 'doc-' || i, 'Document ' || i, $1, now() - make_interval(secs => i),
            CASE WHEN i % 1000 = 7 THEN now() - make_interval(secs => i) END
       FROM generate_series(1, $2) i`,
    [perDoc, DOCS],
  );
  // One version row per document version, as publish writes them (small content; the list never reads it).
  await pool.query(
    sql`INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by, published_at)
     SELECT gen_random_uuid(), d.tenant_id, d.id, v, d.title, 'text/markdown', convert_to('# x', 'UTF8'), 3, md5(d.id::text || v), 'bench',
            d.updated_at - make_interval(secs => (d.business_version - v) * 100)
       FROM documents d CROSS JOIN LATERAL generate_series(1, d.business_version) v`,
  );
  // Tasks: versions 1..perDoc per document; the newest one's status varies, older ones SUCCEEDED.
  await pool.query(
    sql`INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, lease_owner, lease_until, next_attempt_at,
                              error_code, error_message, created_at, updated_at, started_at, finished_at, chunks_total, chunks_reused, batches_sent)
     SELECT d.tenant_id, d.id, v, 'INDEX', s.status, 1,
            CASE WHEN s.status = 'RUNNING' THEN 'w' || (n % 4) END,
            CASE WHEN s.status = 'RUNNING' THEN now() + make_interval(secs => (n % 90) - 10) END,
            CASE WHEN s.status = 'RETRY_WAIT' THEN now() + interval '1 minute' ELSE now() - make_interval(secs => n % 600) END,
            CASE WHEN s.status IN ('DEAD', 'RETRY_WAIT') THEN (ARRAY['EMBEDDING_RATE_LIMITED','PARSE_ERROR','EMBEDDING_TIMEOUT','EMBEDDING_INVALID_RESPONSE'])[1 + (n / 100) % 4] END,
            CASE WHEN s.status IN ('DEAD', 'RETRY_WAIT') THEN 'failure' END,
            now() - make_interval(secs => 100000 - v * 100), now(), now(),
            CASE WHEN s.status IN ('SUCCEEDED', 'DEAD') THEN now() - make_interval(secs => 100000 - v * 100 - 5 - n % 7) END,
            CASE WHEN s.status = 'SUCCEEDED' THEN 20 END, CASE WHEN s.status = 'SUCCEEDED' THEN 15 END, CASE WHEN s.status = 'SUCCEEDED' THEN 1 END
       FROM (SELECT id, tenant_id, business_version, row_number() OVER () AS n FROM documents) d
       CROSS JOIN LATERAL generate_series(1, d.business_version) v
       CROSS JOIN LATERAL (SELECT CASE WHEN v < d.business_version THEN 'SUCCEEDED'
                                       WHEN d.n % 100 = 1 THEN 'DEAD'
                                       WHEN d.n % 200 = 2 THEN 'PENDING'
                                       WHEN d.n % 300 = 3 THEN 'RUNNING'
                                       WHEN d.n % 400 = 4 THEN 'RETRY_WAIT'
                                       ELSE 'SUCCEEDED' END AS status) s`,
  );
  // A later REINDEX of the business version for one document in fifty (an embedding model change).
  await pool.query(
    sql`INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, next_attempt_at, created_at, updated_at, started_at, finished_at, chunks_total, chunks_reused, batches_sent)
     SELECT d.tenant_id, d.id, d.business_version, 'REINDEX', 'SUCCEEDED', 1, now(), now() - interval '50 minutes', now(), now(), now() - interval '49 minutes', 20, 0, 1
       FROM documents d JOIN index_tasks t ON t.document_id = d.id AND t.version_number = d.business_version AND t.task_type = 'INDEX' AND t.status = 'SUCCEEDED'
      WHERE d.key LIKE '%3' AND d.deleted_at IS NULL AND (substr(d.key, 5)::int / 10) % 5 = 0`,
  );
  // Index versions in the server's embedding space (the local embedder's model and dimensions):
  // documents whose newest task SUCCEEDED serve it; the rest serve the version before. One in five
  // hundred still serves an index built with an older model, which search cannot use (NOT_INDEXED).
  await pool.query(
    sql`INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count, activated_at)
     SELECT gen_random_uuid(), d.tenant_id, d.id, CASE WHEN t.status = 'SUCCEEDED' THEN d.business_version ELSE d.business_version - 1 END, 'ACTIVE', 'c',
            CASE WHEN substr(d.key, 5)::int % 500 = 5 THEN 'old-model' ELSE $1 END, 384, 1, 1, now()
       FROM documents d JOIN index_tasks t ON t.document_id = d.id AND t.version_number = d.business_version AND t.task_type = 'INDEX'`,
    [LOCAL_MODEL],
  );
  await pool.query(
    `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) SELECT document_id, tenant_id, id, version_number FROM index_versions WHERE version_number > 0`,
  );
  // The pointer trigger just rewrote every document once (its search version): compact the table
  // and its indexes, as a table that grew one publish at a time would be, not twice its size.
  await pool.query(`VACUUM FULL documents`);
  // Timelines: created, claimed and the outcome, for one task in four.
  await pool.query(
    sql`INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, at)
     SELECT task_id, tenant_id, k, 'w1', 1, created_at + make_interval(secs => o) FROM index_tasks
      CROSS JOIN LATERAL unnest(ARRAY['CREATED', 'CLAIMED', CASE WHEN status IN ('SUCCEEDED', 'DEAD') THEN status ELSE 'RENEWED' END]) WITH ORDINALITY AS e(k, o)
      WHERE task_id % 4 = 0`,
  );
  // Search: one chunk per served document of one tenant, with a random unit-length vector. Within
  // SEARCH_EXACT_MAX_CHUNKS, so its searches take the exact path (bench/search.ts times HNSW).
  // The default index space's HNSW index, dropped for the load and built again after it.
  const space = {
    id: Number((await pool.query(`SELECT indexwright_default_space() AS id`)).rows[0].id),
    dimensions: 384,
  };
  await pool.query(`DROP INDEX IF EXISTS ${spaceIndexName(space.id)}`);
  await pool.query(
    sql`INSERT INTO chunk_vectors (tenant_id, document_id, content_hash, embedding_model, dims, chunker_version, embedding, text)
     SELECT d.tenant_id, d.id, md5(d.key), iv.embedding_model, 384, iv.chunker_version,
            (SELECT array_agg(random() - 0.5)::vector FROM generate_series(1, 384) g WHERE d.id IS NOT NULL), 'Document ' || d.key || ' text'
       FROM documents d JOIN search_pointers sp ON sp.document_id = d.id JOIN index_versions iv ON iv.id = sp.index_version_id
      WHERE d.tenant_id = $1`,
    [SEARCH_TENANT],
  );
  await pool.query(
    sql`INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, text, content_hash, dims, vector_id)
     SELECT sp.index_version_id, 0, d.key || '-0', d.tenant_id, d.id, 'Document ' || d.key || ' text', v.content_hash, 384, v.id
       FROM documents d JOIN search_pointers sp ON sp.document_id = d.id JOIN chunk_vectors v ON v.document_id = d.id
      WHERE d.tenant_id = $1`,
    [SEARCH_TENANT],
  );
  await pool.query(spaceIndexSql(space, false));
  await pool.query(
    `INSERT INTO workers (id, host, pid, concurrency) SELECT 'w' || i, 'host', 1000 + i, 4 FROM generate_series(0, 3) i`,
  );
  await pool.query(
    sql`INSERT INTO workers (id, host, pid, concurrency, started_at, last_heartbeat_at, stopped_at)
     SELECT 'old' || i, 'host', 2000 + i, 4, now() - interval '2 days', now() - make_interval(hours => i), now() - make_interval(hours => i) FROM generate_series(1, 40) i`,
  );
  await pool.query(sql`INSERT INTO backlog_snapshots (taken_at, pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count, latency_p50_seconds, latency_p95_seconds)
                    SELECT now() - make_interval(mins => i), 500, 250, 330, 1000, 500, 60, 1500, 4 + i % 7, 20 + i % 13 FROM generate_series(0, 7 * 1440) i`);
  await pool.query(
    sql`INSERT INTO reconcile_passes (started_at, finished_at, actor, counts, totals)
     SELECT now() - make_interval(mins => 5 * (2000 - i)), now() - make_interval(mins => 5 * (2000 - i)) + interval '2 seconds', 'w1', '{}'::jsonb, '{}'::jsonb FROM generate_series(0, 2000) i`,
  );
  await pool.query(
    sql`INSERT INTO audit_log (actor, action, tenant_id, target_type, target_id, reason, at)
     SELECT 'user:ops@bench.example', (ARRAY['task.retry','document.reindex','document.rollback','task.force_done'])[1 + i % 4], 't' || (i % 10), 'task', i::text, 'bench',
            now() - make_interval(secs => 50000 - i)
       FROM generate_series(1, 50000) i`,
  );
  // People use the dashboard through session cookies: 200 all-tenant operators and 50 tenant-limited
  // viewers, 10,000 of their sessions (half ended or expired), 300 API tokens.
  await pool.query(
    `INSERT INTO users (id, email, role, tenants) SELECT gen_random_uuid(), 'user' || i || '@bench.example', 'operator', ARRAY['*'] FROM generate_series(1, 200) i`,
  );
  await pool.query(
    `INSERT INTO users (id, email, role, tenants) SELECT gen_random_uuid(), 'viewer' || i || '@bench.example', 'viewer', ARRAY['t' || (i % 10)] FROM generate_series(1, 50) i`,
  );
  await pool.query(
    `INSERT INTO users (id, email, role, tenants) VALUES (gen_random_uuid(), 'admin@bench.example', 'admin', ARRAY['*'])`,
  );
  await pool.query(
    sql`INSERT INTO sessions (id_hash, user_id, method, created_at, expires_at, revoked_at)
     SELECT md5(i::text) || md5((i + 1)::text), u.id, 'password', now() - interval '1 hour',
            now() + CASE WHEN i % 4 = 0 THEN interval '-1 hour' ELSE interval '11 hours' END, CASE WHEN i % 4 = 1 THEN now() END
       FROM generate_series(1, 10000) i
       JOIN (SELECT id, row_number() OVER (ORDER BY email) - 1 AS k FROM users) u ON u.k = i % 251`,
  );
  await pool.query(
    sql`INSERT INTO api_tokens (id, name, token_hash, role, tenants, created_by, revoked_at)
     SELECT gen_random_uuid(), 'token ' || i, md5(i::text) || md5((i * 7)::text), 'operator', CASE WHEN i % 3 = 0 THEN ARRAY['*'] ELSE ARRAY['t' || (i % 10)] END,
            'user:admin@bench.example', CASE WHEN i % 5 = 0 THEN now() END
       FROM generate_series(1, 300) i`,
  );
  // Webhooks: an endpoint per tenant, 20,000 events delivered to their tenant's endpoint (a tail failed).
  await pool.query(
    sql`INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, created_by)
     SELECT gen_random_uuid(), 't' || i, 'https://hooks.example/t' || i, ARRAY['document.searchable', 'task.dead'], 'whsec_bench', 'user:admin@bench.example' FROM generate_series(0, 9) i`,
  );
  await pool.query(
    sql`INSERT INTO webhook_events (message_id, tenant_id, type, payload, created_at)
     SELECT 'msg_' || i, 't' || (i % 10), 'document.searchable', jsonb_build_object('key', 'doc-' || i), now() - make_interval(secs => 20000 - i) FROM generate_series(1, 20000) i`,
  );
  await pool.query(
    sql`INSERT INTO webhook_deliveries (event_id, endpoint_id, tenant_id, status, attempts, next_attempt_at, last_attempt_at)
     SELECT e.id, w.id, e.tenant_id, CASE WHEN e.id % 50 = 0 THEN 'DEAD' ELSE 'DELIVERED' END, 1, e.created_at, e.created_at
       FROM webhook_events e JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id`,
  );
  await pool.query(`VACUUM ANALYZE`);
}

/** `next build` in the project, its output sent to stderr so stdout's last line stays the result. */
function build(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: ROOT,
      stdio: ["ignore", process.stderr, process.stderr],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`next build exited with ${code}`)),
    );
  });
}

type Server = { child: ChildProcess; port: number; exited: Promise<void> };

/** The dashboard's web process as `npm start` launches it (cli/start.ts): no react-server condition, production. */
async function startServer(url: string): Promise<Server> {
  const port = Number(process.env.BENCH_PORT ?? (await freePort()));
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "cli", "web.ts")], {
    cwd: ROOT,
    stdio: ["ignore", process.stderr, process.stderr],
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      INDEXWRIGHT_BOOTSTRAP_TOKEN: TOKEN,
      INDEXWRIGHT_PROCESS: "web",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? "warn",
    },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the web server exited with ${child.exitCode} before answering`);
    const ok = await get(`http://127.0.0.1:${port}/api/health`, {}, undefined).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { child, port, exited };
    if (Date.now() > deadline) throw new Error("the web server did not answer /api/health within 180 s");
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stopServer(s: Server): Promise<void> {
  if (s.child.exitCode !== null) return;
  s.child.kill("SIGTERM");
  const t = setTimeout(() => s.child.kill("SIGKILL"), 15_000);
  await s.exited;
  clearTimeout(t);
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number): number | null {
  const ms = procCpuMs(pid);
  return ms === null ? null : ms / 1000;
}

/** CPU of the web process and of its database backends (the pool's connections, application_name indexwright). */
async function cpuSnapshot(pool: pg.Pool, webPid: number): Promise<{ web: number | null; db: number | null }> {
  const pids = (
    await pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'indexwright'`,
    )
  ).rows.map((r) => r.pid);
  const db = pids.map(cpuSeconds);
  return { web: cpuSeconds(webPid), db: db.includes(null) ? null : (db as number[]).reduce((a, b) => a + b, 0) };
}

type Answer = { status: number; body: string };

/**
 * One request. A keep-alive connection the server closed while idle (its keep-alive timeout, 5 s)
 * can fail the request sent on it just then; that one is sent again on a new connection, as Node's
 * documentation advises (`reusedSocket`).
 */
async function get(
  url: string,
  headers: Record<string, string>,
  agent: http.Agent | undefined,
  body?: string,
): Promise<Answer> {
  try {
    return await send(url, headers, agent, body);
  } catch (err) {
    if ((err as { reused?: boolean }).reused && (err as NodeJS.ErrnoException).code === "ECONNRESET")
      return send(url, headers, agent, body);
    throw err;
  }
}

function send(
  url: string,
  headers: Record<string, string>,
  agent: http.Agent | undefined,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: body === undefined ? "GET" : "POST",
        headers:
          body === undefined
            ? headers
            : { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", (err) => reject(Object.assign(err, { reused: req.reusedSocket })));
    req.end(body);
  });
}

/**
 * A fresh seeded database (dropped after unless BENCH_KEEP=1), or with BENCH_REUSE_DB=<name> one
 * a kept run seeded: its pending migrations are applied first, as an upgrade would, and it is kept.
 */
async function withDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  if (!REUSE) return withBenchDatabase("dashboard", fn);
  if (!/^[a-z0-9_]+$/.test(REUSE)) throw new Error("BENCH_REUSE_DB must be a database name");
  const u = new URL(process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  u.pathname = `/${REUSE}`;
  const r = await migrate(u.toString());
  if (r.applied.length) console.error(`[bench] applied to ${REUSE}: ${r.applied.join(", ")}`);
  return fn(u.toString());
}

type Probe = { name: string; route: string; path: string; body?: string };

async function main() {
  let buildSeconds: number | null = null;
  if (process.env.BENCH_SKIP_BUILD === "1") {
    if (!existsSync(path.join(ROOT, ".next", "BUILD_ID")))
      throw new Error("BENCH_SKIP_BUILD=1 but there is no .next build; run `npm run build` first");
  } else buildSeconds = await build();

  let failed = false;
  await withDatabase(async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on("error", () => undefined); // the database is dropped under idle clients at the end
    const t0 = performance.now();
    if (!REUSE) await seed(pool);
    // What a running fleet's maintenance tick does within a minute of start: seal the finished
    // tasks' 15-minute buckets (lib/queue/snapshots.ts), which the 24 h and 7 d activity read.
    const sealed = await rollUpTaskOutcomes(pool);
    if (sealed) console.error(`[bench] task outcomes rolled up to ${sealed.toISOString()}`);
    // And count the freshness SLO's finished hours (lib/slo/rollup.ts), which its long windows read.
    const r0 = performance.now();
    const fresh = await rollUpFreshness(pool, FRESHNESS_DEFAULTS);
    console.error(
      `[bench] freshness rolled up: ${fresh.hours} hours of ${fresh.tenants} tenants in ${Math.round(performance.now() - r0)} ms`,
    );
    const seedSeconds = REUSE ? null : (performance.now() - t0) / 1000;
    const data = (
      await pool.query(
        sql`SELECT (SELECT count(*) FROM documents)::int AS documents, (SELECT count(*) FROM document_versions)::int AS versions,
                (SELECT count(*) FROM index_tasks)::int AS tasks, (SELECT count(*) FROM task_events)::int AS events,
                (SELECT count(*) FROM chunks)::int AS chunks, (SELECT count(*) FROM audit_log)::int AS audit,
                (SELECT count(*) FROM sessions)::int AS sessions, (SELECT count(*) FROM documents WHERE drifted)::int AS drifted`,
      )
    ).rows[0];
    const dead = (
      await pool.query(
        `SELECT d.tenant_id, d.key FROM index_tasks t JOIN documents d ON d.id = t.document_id WHERE t.status = 'DEAD' ORDER BY t.task_id LIMIT 1`,
      )
    ).rows[0];
    const evTask = (await pool.query(`SELECT task_id::text AS id FROM task_events ORDER BY id DESC LIMIT 1`)).rows[0]
      .id;
    const chunked = (
      await pool.query(
        `SELECT d.tenant_id, d.key FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.updated_at DESC LIMIT 1`,
      )
    ).rows[0];
    const endpoint = (await pool.query(`SELECT id FROM webhook_endpoints WHERE tenant_id = 't1'`)).rows[0].id;

    // An admin's session, opened the way sign-in opens one: the cookie is the only copy of its id.
    const { openSession } = await import("../lib/auth/session");
    const admin = (await pool.query(`SELECT id FROM users WHERE email = 'admin@bench.example'`)).rows[0].id;
    const headers = {
      cookie: `iw_session=${await openSession(pool, { kind: "user", userId: admin }, "password", "bench")}`,
    };

    const server = await startServer(url);
    const base = `http://127.0.0.1:${server.port}`;
    const facts = await machineFacts(pool);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    try {
      // Cursors five pages deep, to time keyset pagination past the first page.
      const deep = async (p: string) => {
        let cursor: string | null = null;
        for (let i = 0; i < 4; i++) {
          const r = await get(
            `${base}${p}${p.includes("?") ? "&" : "?"}limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
            headers,
            agent,
          );
          if (r.status !== 200) throw new Error(`${p} answered ${r.status}: ${r.body.slice(0, 200)}`);
          cursor = JSON.parse(r.body).nextCursor;
        }
        return encodeURIComponent(cursor ?? "");
      };
      const docCursor = await deep("/api/v1/documents");
      const taskCursor = await deep("/api/v1/tasks");
      const auditCursor = await deep("/api/v1/audit");
      const doc = `/api/v1/tenants/${dead.tenant_id}/documents/${dead.key}`;
      const probes: Probe[] = [
        { name: "GET /api/health", route: "GET /api/health", path: "/api/health" },
        { name: "GET /api/v1/overview", route: "GET /api/v1/overview", path: "/api/v1/overview" },
        {
          name: "GET /api/v1/overview/activity?range=1h",
          route: "GET /api/v1/overview/activity",
          path: "/api/v1/overview/activity?range=1h",
        },
        {
          name: "GET /api/v1/overview/activity (24h)",
          route: "GET /api/v1/overview/activity",
          path: "/api/v1/overview/activity",
        },
        {
          name: "GET /api/v1/overview/activity?range=7d",
          route: "GET /api/v1/overview/activity",
          path: "/api/v1/overview/activity?range=7d",
        },
        { name: "GET /api/metrics", route: "GET /api/metrics", path: "/api/metrics" },
        { name: "GET /api/openapi.json", route: "GET /api/openapi.json", path: "/api/openapi.json" },
        { name: "GET /api/v1/workers", route: "GET /api/v1/workers", path: "/api/v1/workers" },
        { name: "GET /api/v1/tenants", route: "GET /api/v1/tenants", path: "/api/v1/tenants" },
        { name: "GET /api/v1/documents", route: "GET /api/v1/documents", path: "/api/v1/documents?limit=50" },
        {
          name: "GET /api/v1/documents (page 5)",
          route: "GET /api/v1/documents",
          path: `/api/v1/documents?limit=50&cursor=${docCursor}`,
        },
        {
          name: "GET /api/v1/documents?state=FAILED",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?state=FAILED&limit=50",
        },
        {
          name: "GET /api/v1/documents?state=INDEXING",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?state=INDEXING&limit=50",
        },
        {
          name: "GET /api/v1/documents?state=UPDATING",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?state=UPDATING&limit=50",
        },
        {
          name: "GET /api/v1/documents?state=NOT_INDEXED",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?state=NOT_INDEXED&limit=50",
        },
        {
          name: "GET /api/v1/documents?state=DELETED",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?state=DELETED&limit=50",
        },
        {
          name: "GET /api/v1/documents?tenant=t3&state=SEARCHABLE",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?tenant=t3&state=SEARCHABLE&limit=50",
        },
        {
          name: "GET /api/v1/documents?tenant=t3&q=doc-42",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?tenant=t3&q=doc-42&limit=50",
        },
        {
          name: "GET /api/v1/documents?q=doc-77777 (one match)",
          route: "GET /api/v1/documents",
          path: "/api/v1/documents?q=doc-77777&limit=50",
        },
        {
          name: "GET /api/v1/tenants/{t}/documents/{k}",
          route: `GET /api/v1/tenants/[tenant]/documents/[key]`,
          path: doc,
        },
        {
          name: "GET /api/v1/tenants/{t}/documents/{k}/chunks",
          route: "GET /api/v1/tenants/[tenant]/documents/[key]/chunks",
          path: `/api/v1/tenants/${chunked.tenant_id}/documents/${chunked.key}/chunks`,
        },
        { name: "GET /api/v1/tasks", route: "GET /api/v1/tasks", path: "/api/v1/tasks?limit=50" },
        {
          name: "GET /api/v1/tasks (page 5)",
          route: "GET /api/v1/tasks",
          path: `/api/v1/tasks?limit=50&cursor=${taskCursor}`,
        },
        {
          name: "GET /api/v1/tasks?status=DEAD",
          route: "GET /api/v1/tasks",
          path: "/api/v1/tasks?status=DEAD&limit=50",
        },
        {
          name: "GET /api/v1/tasks?status=RUNNING&tenant=t3",
          route: "GET /api/v1/tasks",
          path: "/api/v1/tasks?status=RUNNING&tenant=t3&limit=50",
        },
        {
          name: "GET /api/v1/tasks?status=DEAD&errorCode=PARSE_ERROR&tenant=t1",
          route: "GET /api/v1/tasks",
          path: "/api/v1/tasks?status=DEAD&errorCode=PARSE_ERROR&tenant=t1&limit=50",
        },
        {
          name: "GET /api/v1/tasks?errorCode=EMBEDDING_TIMEOUT",
          route: "GET /api/v1/tasks",
          path: "/api/v1/tasks?errorCode=EMBEDDING_TIMEOUT&limit=50",
        },
        {
          name: "GET /api/v1/tasks?type=REINDEX",
          route: "GET /api/v1/tasks",
          path: "/api/v1/tasks?type=REINDEX&limit=50",
        },
        {
          name: "GET /api/v1/tasks?type=DELETE (none)",
          route: "GET /api/v1/tasks",
          path: "/api/v1/tasks?type=DELETE&limit=50",
        },
        { name: "GET /api/v1/tasks?tenant=t7", route: "GET /api/v1/tasks", path: "/api/v1/tasks?tenant=t7&limit=50" },
        { name: "GET /api/v1/tasks/{id}", route: "GET /api/v1/tasks/[taskId]", path: `/api/v1/tasks/${evTask}` },
        { name: "GET /api/v1/audit", route: "GET /api/v1/audit", path: "/api/v1/audit?limit=50" },
        {
          name: "GET /api/v1/audit (page 5)",
          route: "GET /api/v1/audit",
          path: `/api/v1/audit?limit=50&cursor=${auditCursor}`,
        },
        { name: "GET /api/v1/admin/users", route: "GET /api/v1/admin/users", path: "/api/v1/admin/users" },
        { name: "GET /api/v1/admin/tokens", route: "GET /api/v1/admin/tokens", path: "/api/v1/admin/tokens" },
        { name: "GET /api/v1/admin/webhooks", route: "GET /api/v1/admin/webhooks", path: "/api/v1/admin/webhooks" },
        {
          name: "GET /api/v1/admin/webhooks/{id}/deliveries",
          route: "GET /api/v1/admin/webhooks/[id]/deliveries",
          path: `/api/v1/admin/webhooks/${endpoint}/deliveries`,
        },
        {
          name: `POST /api/v1/tenants/{t}/search (${data.chunks} chunks)`,
          route: "POST /api/v1/tenants/[tenant]/search",
          path: `/api/v1/tenants/${SEARCH_TENANT}/search`,
          body: JSON.stringify({ query: "how do I rotate the signing keys", topK: 10 }),
        },
      ];
      // The route table's GET routes this bench has no probe for are named in the result (sign-in
      // redirects are not dashboard reads; the exports stream a whole list as a download), so a new
      // route cannot go untimed unnoticed.
      const timed = new Set(probes.map((p) => p.route));
      const getRoutesNotTimed = ROUTES.filter(
        (r) => r.method === "GET" && !r.path.startsWith("/api/auth/") && !timed.has(`${r.method} ${r.path}`),
      ).map((r) => r.path);
      if (getRoutesNotTimed.length)
        console.error(`[bench] GET routes of lib/http/routes.ts without a probe here: ${getRoutesNotTimed.join(", ")}`);

      const results: Record<
        string,
        {
          p50: number;
          p95: number;
          max: number;
          requests: number;
          status: number;
          bytes: number;
          cpuMsPerRequest: { web: number | null; db: number | null };
        }
      > = {};
      const refused: string[] = [];
      const searchHeaders = { ...headers, origin: base };
      for (const p of probes) {
        const h = p.body === undefined ? headers : searchHeaders;
        const lat: number[] = [];
        let last: Answer = { status: 0, body: "" };
        const perClient = Math.ceil(REQUESTS / CLIENTS);
        // Warm-up rounds at full concurrency (JIT, the route's first compile, plan caches), not timed.
        for (let w = 0; w < WARMUP_ROUNDS; w++)
          await Promise.all(Array.from({ length: CLIENTS }, () => get(base + p.path, h, agent, p.body)));
        // Backends can come and go with the pool's idle timeout; read them after warm-up, when the pool is full.
        const before = await cpuSnapshot(pool, server.child.pid!);
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            for (let i = 0; i < perClient; i++) {
              const s = performance.now();
              const r = await get(base + p.path, h, agent, p.body);
              lat.push(performance.now() - s);
              if (r.status !== 200) refused.push(`${p.name} answered ${r.status}: ${r.body.slice(0, 200)}`);
              last = r;
            }
          }),
        );
        lat.sort((a, b) => a - b);
        const after = await cpuSnapshot(pool, server.child.pid!);
        const perRequest = (a: number | null, b: number | null) =>
          a === null || b === null || b < a ? null : round3(((b - a) * 1000) / lat.length);
        results[p.name] = {
          p50: round3(percentile(lat, 50)),
          p95: round3(percentile(lat, 95)),
          max: round3(lat[lat.length - 1]),
          requests: lat.length,
          status: last.status,
          bytes: Buffer.byteLength(last.body),
          cpuMsPerRequest: { web: perRequest(before.web, after.web), db: perRequest(before.db, after.db) },
        };
        const r = results[p.name];
        console.error(
          `[bench] ${p.name}: p50 ${r.p50} ms, p95 ${r.p95} ms, CPU per request web ${r.cpuMsPerRequest.web} ms, db ${r.cpuMsPerRequest.db} ms`,
        );
      }
      const [worstRoute, worst] = Object.entries(results).reduce((a, b) => (b[1].p95 > a[1].p95 ? b : a));
      const req = createRequire(import.meta.url);
      const version = (pkg: string) =>
        (JSON.parse(readFileSync(req.resolve(`${pkg}/package.json`), "utf8")) as { version: string }).version;
      failed = refused.length > 0;
      console.log(
        JSON.stringify({
          bench: "dashboard",
          date: new Date().toISOString(),
          method: `HTTP against a production build (next build, then cli/web.ts as npm start runs it) on real PostgreSQL; admin session cookie; per route ${WARMUP_ROUNDS} untimed rounds of ${CLIENTS} concurrent requests, then ${CLIENTS} concurrent clients each sending ${Math.ceil(REQUESTS / CLIENTS)} requests back to back over keep-alive connections; latency is request sent to body read; CPU per request is the web process's and its database backends' (/proc) over the timed requests`,
          settings: {
            clients: CLIENTS,
            requestsPerRoute: Math.ceil(REQUESTS / CLIENTS) * CLIENTS,
            warmupRounds: WARMUP_ROUNDS,
            pgPoolMax: Number(process.env.PG_POOL_MAX ?? 10),
            auth: "admin session cookie",
          },
          versions: {
            node: process.version,
            next: version("next"),
            react: version("react"),
            prisma: version("@prisma/client"),
            pg: version("pg"),
            postgres: facts.postgres,
          },
          machine: { ...facts, loadAverage1mAtEnd: Math.round((await import("node:os")).loadavg()[0] * 100) / 100 },
          data: {
            ...data,
            seedSeconds: seedSeconds === null ? null : round3(seedSeconds),
            reusedDatabase: REUSE ?? null,
          },
          buildSeconds: buildSeconds === null ? null : round3(buildSeconds),
          routesMs: results,
          worstRoute,
          worstP95Ms: worst.p95,
          targetP95Ms: TARGET_P95_MS,
          allUnderTarget: Object.values(results).every((r) => r.p95 < TARGET_P95_MS),
          getRoutesNotTimed,
          ...(refused.length ? { refused: [...new Set(refused)].slice(0, 20) } : {}),
        }),
      );
    } finally {
      agent.destroy();
      await stopServer(server);
      await pool.end();
    }
  });
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
