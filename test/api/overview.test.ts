import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { overview } from "../../lib/operations/repository";

// Overview figures against ground truth computed separately in SQL, over a seeded mix of states,
// expired and expiring leases, drifted documents (some acknowledged) and error codes.
let t: TestDb;
const TOKEN = "overview-token-0123456789abcdef";
beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  // Each case scrapes right after its own writes: no answer shared from an earlier scrape.
  process.env.DASHBOARD_SHARED_READ_MS = "0";
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
  await t.pool.query(`INSERT INTO tenants (id, name) VALUES ('ov', 'ov')`);
  // 60 documents; document i has business version 1 + (i % 3) and a task mix driven by i.
  const statuses = ["PENDING", "RUNNING", "RETRY_WAIT", "SUCCEEDED", "DEAD", "SUPERSEDED", "RESOLVED"];
  const codes = ["EMBEDDING_RATE_LIMITED", "PARSE_ERROR", "EMBEDDING_TIMEOUT"];
  for (let i = 0; i < 60; i++) {
    const docId = randomUUID();
    const bv = 1 + (i % 3);
    await t.pool.query(
      `INSERT INTO documents (id, tenant_id, key, title, business_version, deleted_at) VALUES ($1, 'ov', $2, 'D', $3, $4)`,
      [docId, `d${i}`, bv, i % 17 === 0 ? new Date() : null],
    );
    for (let v = 1; v <= bv; v++) {
      await t.pool.query(
        `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by, published_at)
         VALUES ($1, 'ov', $2, $3, 'D', 'text/plain', 'x', 1, 'c', 't', now() - make_interval(mins => $4))`,
        [randomUUID(), docId, v, (60 - i) * 3 + v],
      );
    }
    const status = statuses[i % statuses.length];
    const running = status === "RUNNING";
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, lease_owner, lease_until, next_attempt_at, error_code, error_message,
                                created_at, finished_at, chunks_total, chunks_reused, batches_sent)
       VALUES ('ov', $1, $2, 'INDEX', $3, 1, $4, $5, now() + make_interval(secs => $6), $7, $8, now() - make_interval(secs => $9), $10, $11, $12, $13)`,
      [
        docId,
        bv,
        status,
        running ? "w1" : null,
        running ? new Date(Date.now() + (i % 2 === 0 ? -5_000 : i % 3 === 0 ? 5_000 : 300_000)) : null,
        i % 4 === 0 ? 120 : -(i * 11),
        status === "DEAD" || status === "RETRY_WAIT" ? codes[i % codes.length] : null,
        status === "DEAD" || status === "RETRY_WAIT" ? "boom" : null,
        100 + i * 7,
        status === "SUCCEEDED" ? new Date(Date.now() - i * 1000) : null,
        status === "SUCCEEDED" ? 10 + i : null,
        status === "SUCCEEDED" ? i : null,
        status === "SUCCEEDED" ? 1 + (i % 4) : null,
      ],
    );
    if (i % 2 === 0) {
      // Half the documents are searchable at some version ≤ the business version.
      const iv = randomUUID();
      const sv = Math.max(1, bv - (i % 4 === 0 ? 1 : 0));
      await t.pool.query(
        `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count) VALUES ($1, 'ov', $2, $3, 'ACTIVE', 'c', 'm', 3, 0)`,
        [iv, docId, sv],
      );
      await t.pool.query(
        `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, 'ov', $2, $3)`,
        [docId, iv, sv],
      );
    }
  }
  await t.pool.query(
    `INSERT INTO workers (id, host, pid, concurrency, last_heartbeat_at) VALUES ('live', 'h', 1, 2, now()), ('stale', 'h', 2, 2, now() - interval '1 hour')`,
  );
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const one = async (sql: string) => Object.values((await t.pool.query(sql)).rows[0])[0] as any;

describe("overview", () => {
  it("equals ground truth computed directly in SQL", async () => {
    // An age grows while the queries run (a slow embedded database takes a second): the overview's
    // must lie between the ages read just before and just after it.
    const oldestSql = `SELECT extract(epoch FROM now() - min(next_attempt_at))::float FROM index_tasks WHERE status IN ('PENDING','RETRY_WAIT') AND next_attempt_at <= now()`;
    const oldestBefore = await one(oldestSql);
    const o = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20 });
    const oldestAfter = await one(oldestSql);
    expect(o.queue.due).toBe(
      await one(
        `SELECT count(*)::int FROM index_tasks WHERE status IN ('PENDING','RETRY_WAIT') AND next_attempt_at <= now()`,
      ),
    );
    expect(o.queue.due).toBeGreaterThan(0);
    expect(o.queue.oldestDueAgeSeconds).toBeGreaterThanOrEqual(oldestBefore - 0.001);
    expect(o.queue.oldestDueAgeSeconds).toBeLessThanOrEqual(oldestAfter + 0.001);
    expect(o.queue.running).toBe(await one(`SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING'`));
    expect(o.queue.leasesExpired).toBe(
      await one(`SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND lease_until <= now()`),
    );
    expect(o.queue.leasesExpired).toBeGreaterThan(0);
    expect(o.queue.leasesExpiringSoon).toBe(
      await one(
        `SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND lease_until > now() AND lease_until <= now() + interval '20 seconds'`,
      ),
    );
    expect(o.queue.leasesExpiringSoon).toBeGreaterThan(0);
    expect(o.queue.dead).toBe(await one(`SELECT count(*)::int FROM index_tasks WHERE status = 'DEAD'`));

    const errs = (
      await t.pool.query(
        `SELECT error_code, status, count(*)::int AS n FROM index_tasks WHERE status IN ('DEAD','RETRY_WAIT') AND error_code IS NOT NULL GROUP BY 1, 2`,
      )
    ).rows;
    expect(o.errors.map((e) => `${e.errorCode}/${e.status}=${e.count}`).sort()).toEqual(
      errs.map((e) => `${e.error_code}/${e.status}=${e.n}`).sort(),
    );

    const driftRows = (
      await t.pool.query(
        `SELECT d.id, (SELECT status FROM index_tasks x WHERE x.document_id = d.id AND x.version_number = d.business_version ORDER BY task_id DESC LIMIT 1) AS st,
              (SELECT published_at FROM document_versions v WHERE v.document_id = d.id AND v.version_number = d.business_version) AS pub
         FROM documents d LEFT JOIN search_pointers sp ON sp.document_id = d.id
        WHERE d.deleted_at IS NULL AND coalesce(sp.version_number, 0) <> d.business_version`,
      )
    ).rows;
    expect(o.drift.count).toBe(driftRows.length);
    expect(o.drift.acknowledged).toBe(driftRows.filter((r) => r.st === "RESOLVED").length);
    expect(o.drift.acknowledged).toBeGreaterThan(0);
    const oldestPub = Math.min(...driftRows.map((r) => r.pub.getTime()));
    expect(o.drift.oldestAgeSeconds!).toBeCloseTo((Date.now() - oldestPub) / 1000, -1);

    const succ = (
      await t.pool.query(
        `SELECT extract(epoch FROM finished_at - created_at)::float AS s, chunks_total, chunks_reused, batches_sent FROM index_tasks WHERE status = 'SUCCEEDED'`,
      )
    ).rows;
    const lat = succ.map((r) => r.s).sort((a, b) => a - b);
    const median = (lat[Math.floor((lat.length - 1) / 2)] + lat[Math.ceil((lat.length - 1) / 2)]) / 2;
    expect(o.publishToSearchableSeconds.samples).toBe(succ.length);
    expect(Number(o.publishToSearchableSeconds.p50)).toBeCloseTo(median, 3);
    const total = succ.reduce((a, r) => a + r.chunks_total, 0);
    const reused = succ.reduce((a, r) => a + r.chunks_reused, 0);
    expect(Number(o.embeddingReuseRate)).toBeCloseTo(reused / total, 6);
    expect(Number(o.perTask.chunks)).toBeCloseTo(total / succ.length, 6);
    expect(Number(o.perTask.embeddingBatches)).toBeCloseTo(
      succ.reduce((a, r) => a + r.batches_sent, 0) / succ.length,
      6,
    );
    expect(o.workers.map((w) => w.id)).toEqual(["live"]);
  });

  it("counts the live documents served by an index version outside their tenant's active space, per tenant, scoped, and none in it", async () => {
    const q = async (sql: string, args: unknown[] = []) => (await t.pool.query(sql, args)).rows;
    const space = async (name: string, model: string, dimensions: number, chunker = "c"): Promise<number> =>
      (
        await q(
          `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version) VALUES ($1, 'openai', $2, $3, $4) RETURNING id`,
          [name, model, dimensions, chunker],
        )
      )[0].id;
    const onSpace = (tenant: string, id: number) =>
      q(`UPDATE tenants SET active_space_id = $2 WHERE id = $1`, [tenant, id]);
    // Ground truth: a live pointer whose index version's space is not its tenant's active one.
    const truth = async (tenants: string[] | null) =>
      (
        await q(
          `SELECT count(*)::int AS n FROM search_pointers p
             JOIN documents d ON d.id = p.document_id AND d.deleted_at IS NULL
             JOIN index_versions iv ON iv.id = p.index_version_id
             JOIN tenants t ON t.id = p.tenant_id
            WHERE iv.space_id <> t.active_space_id AND ($1::text[] IS NULL OR p.tenant_id = ANY($1::text[]))`,
          [tenants],
        )
      )[0].n as number;
    const other = async (tenants?: string[]) =>
      (await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20, tenants })).otherEmbeddingSpace;
    const [defaultSpace] = await q(`SELECT id, model, dimensions FROM embedding_spaces WHERE is_default`);

    // Every seeded index version is model "m", 3 dimensions: a space of its own, which ov is on.
    const m3 = await space("m-3", "m", 3);
    await q(`UPDATE index_versions SET space_id = $1 WHERE tenant_id = 'ov'`, [m3]);
    await onSpace("ov", m3);
    const served = (
      await q(
        `SELECT count(*)::int AS n FROM search_pointers p JOIN documents d ON d.id = p.document_id AND d.deleted_at IS NULL WHERE p.tenant_id = 'ov'`,
      )
    )[0].n as number;
    expect(served).toBeGreaterThan(0);
    expect(await other()).toEqual({ count: 0, model: "m", dimensions: 3 });
    // The tenant on a neighbouring space (another model sorting before or after, other dimensions
    // either side, the same model and dimensions chunked otherwise): everything it serves is outside.
    for (const [name, model, dims, chunker] of [
      ["m2-3", "m2", 3, "c"],
      ["m-4", "m", 4, "c"],
      ["a-3", "a", 3, "c"],
      ["m-2", "m", 2, "c"],
      ["m-3-rechunked", "m", 3, "c2"],
    ] as const) {
      await onSpace("ov", await space(name, model, dims, chunker));
      expect(await other(), name).toEqual({ count: served, model, dimensions: dims });
      expect(served, name).toBe(await truth(null));
    }

    // A second tenant on another space: each is judged by its own. ov is back on m-3, where a third
    // of its served versions are rebuilt in the default space (an index version carries its space's
    // model and dimensions); ov2 is on the default space and serves three documents, one from m-3.
    await onSpace("ov", m3);
    await q(
      `UPDATE index_versions SET space_id = $1, embedding_model = $2, embedding_dimensions = $3
        WHERE id IN (SELECT index_version_id FROM search_pointers WHERE tenant_id = 'ov' ORDER BY document_id LIMIT $4)`,
      [defaultSpace.id, defaultSpace.model, defaultSpace.dimensions, Math.ceil(served / 3)],
    );
    await q(`INSERT INTO tenants (id, name, active_space_id) VALUES ('ov2', 'ov2', $1)`, [defaultSpace.id]);
    for (const [i, inSpace] of [m3, defaultSpace.id, defaultSpace.id].entries()) {
      const doc = randomUUID();
      const iv = randomUUID();
      const [model, dims] = inSpace === m3 ? ["m", 3] : [defaultSpace.model, defaultSpace.dimensions];
      await q(`INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, 'ov2', $2, 'D', 1)`, [
        doc,
        `e${i}`,
      ]);
      await q(
        `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count, space_id)
         VALUES ($1, 'ov2', $2, 1, 'ACTIVE', 'c', $3, $4, 0, $5)`,
        [iv, doc, model, dims, inSpace],
      );
      await q(
        `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, 'ov2', $2, 1)`,
        [doc, iv],
      );
    }
    const ov = await truth(["ov"]);
    expect(ov).toBeGreaterThan(0);
    expect(ov).toBeLessThan(served);
    expect(await truth(["ov2"])).toBe(1);
    // The fleet: both tenants' counts, and no one space to name.
    expect(await other()).toEqual({ count: ov + 1, model: null, dimensions: null });
    expect(await other(["ov"])).toEqual({ count: ov, model: "m", dimensions: 3 });
    expect(await other(["ov2"])).toEqual({
      count: 1,
      model: defaultSpace.model,
      dimensions: defaultSpace.dimensions,
    });
    // Scoped like every other figure.
    expect((await other(["elsewhere"])).count).toBe(0);

    // The seed as it was, for the tests after this one.
    await q(`DELETE FROM search_pointers WHERE tenant_id = 'ov2'`);
    await q(`DELETE FROM index_versions WHERE tenant_id = 'ov2'`);
    await q(`DELETE FROM documents WHERE tenant_id = 'ov2'`);
    await q(`DELETE FROM tenants WHERE id = 'ov2'`);
    expect(await other()).toEqual({ count: ov, model: "m", dimensions: 3 });
    await q(
      `UPDATE index_versions SET space_id = $1, embedding_model = 'm', embedding_dimensions = 3 WHERE tenant_id = 'ov'`,
      [m3],
    );
    expect(await other()).toEqual({ count: 0, model: "m", dimensions: 3 });
  });

  it("serves Prometheus metrics with low-cardinality labels only", async () => {
    const { GET } = await import("../../app/api/metrics/route");
    const res = await GET(
      new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^indexwright_tasks_dead \d+$/m);
    expect(text).toMatch(/^indexwright_task_errors\{error_code="PARSE_ERROR",status="DEAD"\} \d+$/m);
    expect(text).toMatch(/^indexwright_leases\{condition="expired"\} [1-9]\d*$/m);
    // A tenant label only on the per-tenant families an SRE alerts on per tenant (the freshness SLO,
    // the latest evaluation figures, the fair claim's wait per tenant and class: a bounded number of
    // series a tenant), never a task, document or key.
    const perTenant = /^indexwright_(slo_freshness|evaluation|tenant_queue_wait)_/;
    for (const m of text.matchAll(/^(\w+)\{([^}]*)\}/gm)) {
      const labels = m[2].split(",").map((kv) => kv.split("=")[0]);
      for (const l of labels)
        expect(["task", "task_id", "document", "document_id", "key", "worker_id"]).not.toContain(l);
      if (!perTenant.test(m[1])) expect(labels, m[1]).not.toContain("tenant");
      expect(labels, m[1]).not.toContain("tenant_id");
    }
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    const shared = text
      .split("\n")
      .filter((l) => !perTenant.test(l))
      .join("\n");
    expect(shared).not.toContain('"ov"');
    const unauth = await GET(new Request("http://localhost/api/metrics"), { params: Promise.resolve({}) });
    expect(unauth.status).toBe(401);
  });

  it("exports publish → searchable latency as a histogram, each successful index task counted once", async () => {
    const { GET } = await import("../../app/api/metrics/route");
    const scrape = async () =>
      (
        await GET(new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }), {
          params: Promise.resolve({}),
        })
      ).text();
    const sample = (text: string, series: string) =>
      Number(new RegExp(`^${series.replace(/[{}+."]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1]);
    const truth = async (extra = "") =>
      (
        await t.pool.query(
          `SELECT count(*)::int AS n, coalesce(sum(s), 0)::float AS sum, count(*) FILTER (WHERE s <= 120)::int AS le120, count(*) FILTER (WHERE s <= 300)::int AS le300
             FROM (SELECT extract(epoch FROM finished_at - created_at) AS s FROM index_tasks WHERE status = 'SUCCEEDED' AND task_type IN ('INDEX', 'REINDEX') ${extra}) x`,
        )
      ).rows[0];

    const first = await scrape();
    expect(first).not.toMatch(/quantile=/);
    expect(first).toMatch(/^# TYPE indexwright_publish_to_searchable_seconds histogram$/m);
    const before = await truth();
    expect(before.n).toBeGreaterThan(3);
    expect(before.le120).toBeGreaterThan(0);
    expect(before.le300).toBeLessThan(before.n);
    expect(sample(first, "indexwright_publish_to_searchable_seconds_count")).toBe(before.n);
    expect(sample(first, 'indexwright_publish_to_searchable_seconds_bucket{le="120"}')).toBe(before.le120);
    expect(sample(first, 'indexwright_publish_to_searchable_seconds_bucket{le="300"}')).toBe(before.le300);
    expect(sample(first, 'indexwright_publish_to_searchable_seconds_bucket{le="+Inf"}')).toBe(before.n);
    expect(sample(first, "indexwright_publish_to_searchable_seconds_sum")).toBeCloseTo(before.sum, 3);

    // Scraped again, nothing new: the same counts (a histogram counts each task once, not per scrape).
    expect(sample(await scrape(), "indexwright_publish_to_searchable_seconds_count")).toBe(before.n);

    // One more task succeeds (publish 40 s before it finished): only it is added.
    const docId = (await t.pool.query(`SELECT id FROM documents LIMIT 1`)).rows[0].id;
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, created_at, finished_at)
       VALUES ('ov', $1, 70, 'REINDEX', 'SUCCEEDED', 1, now() - interval '40 seconds', now())`,
      [docId],
    );
    const third = await scrape();
    expect(sample(third, "indexwright_publish_to_searchable_seconds_count")).toBe(before.n + 1);
    expect(sample(third, 'indexwright_publish_to_searchable_seconds_bucket{le="30"}')).toBe(
      sample(first, 'indexwright_publish_to_searchable_seconds_bucket{le="30"}'),
    );
    expect(sample(third, 'indexwright_publish_to_searchable_seconds_bucket{le="60"}')).toBe(
      sample(first, 'indexwright_publish_to_searchable_seconds_bucket{le="60"}') + 1,
    );
    expect(
      sample(third, "indexwright_publish_to_searchable_seconds_sum") -
        sample(first, "indexwright_publish_to_searchable_seconds_sum"),
    ).toBeCloseTo(40, 1);
    // The overview API still answers with its percentiles over the same sample.
    const o = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20 });
    expect(o.publishToSearchableSeconds.samples).toBe(before.n + 1);
    expect(Object.keys(o.publishToSearchableSeconds).sort()).toEqual(["p50", "p95", "p99", "samples"]);
  });

  it("each backlog snapshot records publish → searchable p50/p95 over tasks finished in the 15 minutes before, and the overview history carries them", async () => {
    const { takeBacklogSnapshot } = await import("../../lib/queue/snapshots");
    const doc = (await t.pool.query(`SELECT id FROM documents LIMIT 1`)).rows[0].id;
    // Outside the window (finished an hour ago, very slow) and of the wrong type: neither counts.
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, created_at, finished_at)
       VALUES ('ov', $1, 90, 'INDEX', 'SUCCEEDED', 1, now() - interval '5 hours', now() - interval '1 hour'),
              ('ov', $1, 91, 'DELETE', 'SUCCEEDED', 1, now() - interval '3 hours', now() - interval '1 minute')`,
      [doc],
    );
    await t.pool.query(`DELETE FROM backlog_snapshots`);
    expect(await takeBacklogSnapshot(t.pool, 0)).toBe(true);
    const snap = (
      await t.pool.query(`SELECT latency_p50_seconds AS p50, latency_p95_seconds AS p95 FROM backlog_snapshots`)
    ).rows[0];
    const truth = (
      await t.pool.query(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS p50, percentile_cont(0.95) WITHIN GROUP (ORDER BY s) AS p95, count(*)::int AS n
           FROM (SELECT extract(epoch FROM finished_at - created_at) AS s FROM index_tasks
                  WHERE status = 'SUCCEEDED' AND task_type IN ('INDEX', 'REINDEX') AND finished_at > now() - interval '15 minutes') x`,
      )
    ).rows[0];
    expect(truth.n).toBeGreaterThan(5);
    expect(snap.p50).toBeCloseTo(truth.p50, 6);
    expect(snap.p95).toBeCloseTo(truth.p95, 6);
    expect(snap.p95).toBeLessThan(3600); // the hour-old, four-hour task is not in it
    const o = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20 });
    const last = o.history[o.history.length - 1];
    expect(last.latencyP50Seconds).toBeCloseTo(truth.p50, 6);
    expect(last.latencyP95Seconds).toBeCloseTo(truth.p95, 6);
  });
});
