// Dashboard API benchmark: seeds DOCS documents and TASKS tasks (mostly finished, a realistic
// tail of due, running, retrying and dead ones, some drift), then calls every dashboard route
// handler in-process REPS times and prints p50/p95 per route. Target: p95 < 150 ms.
//   npm run bench:dashboard          DOCS=100000 TASKS=1000000 REPS=40
import pg from "pg";
import os from "node:os";
import { withBenchDatabase, percentile, round3, serverVersion } from "./db";

const DOCS = Number(process.env.DOCS ?? 100_000);
const TASKS = Number(process.env.TASKS ?? 1_000_000);
const REPS = Number(process.env.REPS ?? 40);
const TOKEN = "bench-dashboard-token-0123456789";

async function seed(pool: pg.Pool) {
  const perDoc = Math.ceil(TASKS / DOCS);
  await pool.query(`INSERT INTO tenants (id, name) SELECT 't' || i, 'Tenant ' || i FROM generate_series(0, 9) i`);
  await pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version, updated_at)
     SELECT gen_random_uuid(), 't' || (i % 10), 'doc-' || i, 'Document ' || i, $1, now() - make_interval(secs => i)
       FROM generate_series(1, $2) i`,
    [perDoc, DOCS],
  );
  await pool.query(
    `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by, published_at)
     SELECT gen_random_uuid(), tenant_id, id, business_version, title, 'text/markdown', convert_to('# x', 'UTF8'), 3, md5(id::text), 'bench', updated_at FROM documents`,
  );
  // Tasks: versions 1..perDoc per document; the newest one's status varies, older ones SUCCEEDED.
  await pool.query(
    `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, lease_owner, lease_until, next_attempt_at,
                              error_code, error_message, created_at, updated_at, started_at, finished_at, chunks_total, chunks_reused, batches_sent)
     SELECT d.tenant_id, d.id, v, 'INDEX', s.status, 1,
            CASE WHEN s.status = 'RUNNING' THEN 'w' || (n % 4) END,
            CASE WHEN s.status = 'RUNNING' THEN now() + make_interval(secs => (n % 90) - 10) END,
            CASE WHEN s.status = 'RETRY_WAIT' THEN now() + interval '1 minute' ELSE now() - make_interval(secs => n % 600) END,
            CASE WHEN s.status IN ('DEAD', 'RETRY_WAIT') THEN (ARRAY['EMBEDDING_RATE_LIMITED','PARSE_ERROR','EMBEDDING_TIMEOUT','EMBEDDING_INVALID_RESPONSE'])[1 + n % 4] END,
            CASE WHEN s.status IN ('DEAD', 'RETRY_WAIT') THEN 'failure' END,
            now() - make_interval(secs => 100000 - v * 100), now(), now(),
            CASE WHEN s.status IN ('SUCCEEDED', 'DEAD') THEN now() - make_interval(secs => 100000 - v * 100 - 5) END,
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
  // Search pointers: documents whose newest task SUCCEEDED serve it; the rest serve the one before.
  await pool.query(
    `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
     SELECT gen_random_uuid(), d.tenant_id, d.id,
            CASE WHEN t.status = 'SUCCEEDED' THEN d.business_version ELSE d.business_version - 1 END, 'ACTIVE', 'c', 'm', 384, 20, 20
       FROM documents d JOIN index_tasks t ON t.document_id = d.id AND t.version_number = d.business_version`,
  );
  await pool.query(`INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) SELECT document_id, tenant_id, id, version_number FROM index_versions WHERE version_number > 0`);
  await pool.query(
    `INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt)
     SELECT task_id, tenant_id, k, 'w1', 1 FROM index_tasks CROSS JOIN unnest(ARRAY['CREATED','CLAIMED','SUCCEEDED']) k WHERE task_id % 50 = 0`,
  );
  await pool.query(`INSERT INTO workers (id, host, pid, concurrency) SELECT 'w' || i, 'host', 1000 + i, 4 FROM generate_series(0, 3) i`);
  await pool.query(`INSERT INTO backlog_snapshots (taken_at, pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count, latency_p50_seconds, latency_p95_seconds)
                    SELECT now() - make_interval(mins => i), 500, 250, 330, 1000, 500, 60, 1500, 4 + i % 7, 20 + i % 13 FROM generate_series(0, 1439) i`);
  await pool.query(`INSERT INTO audit_log (actor, action, tenant_id, target_type, target_id, reason) SELECT 'ops', 'task.retry', 't1', 'task', i::text, 'bench' FROM generate_series(1, 5000) i`);
  // People use the dashboard through session cookies, so requests are timed with one, among 10,000
  // other sessions (half of them ended or expired), the way a long-running install accumulates them.
  // All-tenant operators: the figures timed are the fleet's (an empty grant is no tenant at all).
  await pool.query(`INSERT INTO users (id, email, role, tenants) SELECT gen_random_uuid(), 'user' || i || '@bench.example', 'operator', ARRAY['*'] FROM generate_series(1, 200) i`);
  await pool.query(
    `INSERT INTO sessions (id_hash, user_id, method, created_at, expires_at, revoked_at)
     SELECT md5(i::text) || md5((i + 1)::text), (SELECT id FROM users ORDER BY email OFFSET (i % 200) LIMIT 1), 'password', now() - interval '1 hour',
            now() + CASE WHEN i % 4 = 0 THEN interval '-1 hour' ELSE interval '11 hours' END, CASE WHEN i % 4 = 1 THEN now() END
       FROM generate_series(1, 10000) i`,
  );
  await pool.query(`VACUUM ANALYZE`);
}

let failed = false;

async function main() {
  await withBenchDatabase("dashboard", async (url) => {
    process.env.DATABASE_URL = url;
    process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
    process.env.LOG_LEVEL = "silent";
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on("error", () => undefined); // the database is dropped under idle clients at the end
    const t0 = performance.now();
    await seed(pool);
    const seedSeconds = (performance.now() - t0) / 1000;
    const counts = (await pool.query(`SELECT (SELECT count(*) FROM documents)::int AS documents, (SELECT count(*) FROM index_tasks)::int AS tasks, (SELECT count(*) FROM task_events)::int AS events`)).rows[0];
    const sample = (await pool.query(`SELECT t.task_id::text AS task_id, d.tenant_id, d.key FROM index_tasks t JOIN documents d ON d.id = t.document_id WHERE t.status = 'DEAD' LIMIT 1`)).rows[0];
    const evTask = (await pool.query(`SELECT task_id::text AS id FROM task_events ORDER BY id DESC LIMIT 1`)).rows[0].id;

    const { openSession } = await import("../lib/auth/session");
    const user = (await pool.query(`SELECT id FROM users WHERE email = 'user1@bench.example'`)).rows[0].id;
    const COOKIE = `iw_session=${await openSession(pool, { kind: "user", userId: user }, "password", "bench")}`;
    const api = "../app/api";
    type RouteModule = { GET: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response> };
    const routes: [string, RouteModule, string, Record<string, string>][] = [
      ["GET /api/v1/overview", await import(`${api}/v1/overview/route`), "", {}],
      ["GET /api/v1/documents", await import(`${api}/v1/documents/route`), "", {}],
      ["GET /api/v1/documents?state=FAILED", await import(`${api}/v1/documents/route`), "?state=FAILED", {}],
      ["GET /api/v1/documents?tenant=t3&q=doc-42", await import(`${api}/v1/documents/route`), "?tenant=t3&q=doc-42", {}],
      ["GET /api/v1/documents (page 5)", await import(`${api}/v1/documents/route`), "CURSOR", {}],
      ["GET /api/v1/tasks", await import(`${api}/v1/tasks/route`), "", {}],
      ["GET /api/v1/tasks?status=DEAD", await import(`${api}/v1/tasks/route`), "?status=DEAD", {}],
      ["GET /api/v1/tasks?status=DEAD&errorCode=PARSE_ERROR&tenant=t1", await import(`${api}/v1/tasks/route`), "?status=DEAD&errorCode=PARSE_ERROR&tenant=t1", {}],
      ["GET /api/v1/tasks/{id}", await import(`${api}/v1/tasks/[taskId]/route`), "", { taskId: evTask }],
      ["GET /api/v1/tenants/{t}/documents/{k}", await import(`${api}/v1/tenants/[tenant]/documents/[key]/route`), "", { tenant: sample.tenant_id, key: sample.key }],
      ["GET /api/v1/tenants", await import(`${api}/v1/tenants/route`), "", {}],
      ["GET /api/v1/workers", await import(`${api}/v1/workers/route`), "", {}],
      ["GET /api/v1/audit", await import(`${api}/v1/audit/route`), "", {}],
      ["GET /api/metrics", await import(`${api}/metrics/route`), "", {}],
    ];
    // A cursor four pages deep, to time keyset pagination past the first page.
    let cursor = "";
    const list = routes[1][1];
    for (let i = 0; i < 4; i++) {
      const r = await list.GET(new Request(`http://b/x${cursor ? `?cursor=${cursor}` : ""}`, { headers: { cookie: COOKIE } }), { params: Promise.resolve({}) });
      cursor = (await r.json()).nextCursor;
    }
    const results: Record<string, { p50: number; p95: number; status: number }> = {};
    for (const [name, mod, query, params] of routes) {
      const lat: number[] = [];
      let status = 0;
      for (let i = 0; i < REPS + 3; i++) {
        const q = query === "CURSOR" ? `?cursor=${cursor}` : query;
        const s = performance.now();
        const res: Response = await mod.GET(new Request(`http://b/x${q}`, { headers: { cookie: COOKIE } }), { params: Promise.resolve(params) });
        await res.text();
        if (i >= 3) lat.push(performance.now() - s); // first calls warm caches and the JIT
        status = res.status;
      }
      lat.sort((a, b) => a - b);
      results[name] = { p50: round3(percentile(lat, 50)), p95: round3(percentile(lat, 95)), status };
    }
    const pgv = await serverVersion(pool);
    await pool.end();
    const { closePools } = await import("../lib/db/pool");
    await closePools();
    const worst = Math.max(...Object.values(results).map((r) => r.p95));
    // A refused request (403, 404, 400) is fast and says nothing about the route: the run fails.
    const refused = Object.entries(results).filter(([, r]) => r.status !== 200).map(([name, r]) => `${name} answered ${r.status}`);
    console.log(
      JSON.stringify(
        {
          bench: "dashboard",
          method: "route handlers called in-process (session-cookie auth, validation, SQL, JSON) against real PostgreSQL; 3 warm-up calls then REPS timed calls per route",
          machine: { cpus: os.cpus().length, node: process.version, postgres: pgv },
          data: { ...counts, seedSeconds: round3(seedSeconds) },
          repsPerRoute: REPS,
          routesMs: results,
          worstP95Ms: worst,
          targetP95Ms: 150,
          ...(refused.length ? { refused } : {}),
        },
        null,
        2,
      ),
    );
    failed = refused.length > 0;
  });
  // Route modules keep pools and timers alive; the figures are printed and the database dropped.
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
