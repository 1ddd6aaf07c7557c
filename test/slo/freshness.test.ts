import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { routeCaller, type Mod } from "../helpers/route-call";
import { scrapeDashboard } from "../ops/exported";

// The freshness SLO: the figures the dashboard reads (GET /api/v1/slo, GET /api/v1/tenants/{t}/slo)
// and /api/metrics exports equal a direct computation over index_tasks, written here again in
// TypeScript from the rule in docs/operations.md#freshness-slo; a hand-built tenant pins each rule
// (late, stuck, failed, superseded in time or not, withdrawn by a delete) to numbers worked out by
// hand; and the per-tenant objective is set by admins only, refusing bad input with stable codes
// and writing nothing then.

const BOOT = "slo-bootstrap-token-0123456789abcdef";
const call = routeCaller(BOOT);
let t: TestDb;
let R: Record<string, Mod>;
let dbNow: number;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.LOG_LEVEL = "silent";
  const base = "../../app/api";
  R = {
    list: await import(`${base}/v1/slo/route`),
    slo: await import(`${base}/v1/tenants/[tenant]/slo/route`),
    publish: await import(`${base}/v1/tenants/[tenant]/documents/[key]/versions/route`),
    tokens: await import(`${base}/v1/admin/tokens/route`),
  };
  dbNow = (await t.pool.query<{ ms: number }>(`SELECT (extract(epoch FROM now()) * 1000)::float8 AS ms`)).rows[0].ms;
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

type Task = {
  doc: string;
  version: number;
  type?: "INDEX" | "REINDEX" | "DELETE";
  status: string;
  /** Seconds before now. */
  createdAgo: number;
  /** Seconds after created_at; null: not finished. */
  took: number | null;
};

const docs = new Map<string, string>();
async function docId(tenant: string, key: string): Promise<string> {
  const k = `${tenant}/${key}`;
  if (!docs.has(k)) {
    const id = randomUUID();
    await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [tenant]);
    await t.pool.query(
      `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, $3, $3, 1)`,
      [id, tenant, key],
    );
    docs.set(k, id);
  }
  return docs.get(k)!;
}

/** Tasks as the queue leaves them, with timestamps placed relative to the database's clock. */
async function insertTasks(tenant: string, tasks: Task[]): Promise<void> {
  for (const x of tasks) {
    const doc = await docId(tenant, x.doc);
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, created_at, updated_at, finished_at,
                                attempts, lease_owner, lease_until)
       VALUES ($1, $2, $3, $4, $5, to_timestamp($6 / 1000.0), to_timestamp($6 / 1000.0),
               CASE WHEN $7::float8 IS NULL THEN NULL ELSE to_timestamp($6 / 1000.0) + make_interval(secs => $7::float8) END,
               CASE WHEN $5 = 'RUNNING' THEN 1 ELSE 0 END, CASE WHEN $5 = 'RUNNING' THEN 'slo-test' END,
               CASE WHEN $5 = 'RUNNING' THEN now() + interval '1 minute' END)`,
      [tenant, doc, x.version, x.type ?? "INDEX", x.status, dbNow - x.createdAgo * 1000, x.took],
    );
  }
}

type Row = {
  tenant_id: string;
  document_id: string;
  version_number: number;
  task_type: string;
  status: string;
  created: number;
  finished: number | null;
};

/**
 * The SLI computed directly from the table's rows: the rule of docs/operations.md#freshness-slo,
 * written once more without SQL. Returns per tenant the good and bad publishes decided in the
 * window, the pending ones and the decided ones per UTC day.
 */
async function direct(objectives: Map<string, { target: number }>, windowDays: number) {
  const now = (await t.pool.query<{ ms: number }>(`SELECT (extract(epoch FROM now()) * 1000)::float8 AS ms`)).rows[0]
    .ms;
  const { rows } = await t.pool.query<Row>(
    `SELECT tenant_id, document_id::text, version_number, task_type, status,
            (extract(epoch FROM created_at) * 1000)::float8 AS created, (extract(epoch FROM finished_at) * 1000)::float8 AS finished
       FROM index_tasks`,
  );
  const out = new Map<string, { good: number; bad: number; pending: number; days: Map<string, [number, number]> }>();
  const windowStart = now - windowDays * 86_400_000;
  for (const [tenant, { target }] of objectives) {
    const acc = { good: 0, bad: 0, pending: 0, days: new Map<string, [number, number]>() };
    out.set(tenant, acc);
    for (const r of rows.filter((x) => x.tenant_id === tenant && x.task_type === "INDEX")) {
      const deadline = r.created + target * 1000;
      let outcome: "good" | "bad" | "pending" | null;
      let at: number | null = null;
      if (r.status === "SUCCEEDED") {
        outcome = r.finished! <= deadline ? "good" : "bad";
        at = outcome === "good" ? r.finished! : deadline;
      } else if (["DEAD", "CANCELLED", "RESOLVED"].includes(r.status)) {
        outcome = "bad";
        at = Math.min(r.finished ?? deadline, deadline);
      } else if (r.status === "SUPERSEDED") {
        const successes = rows
          .filter(
            (n) =>
              n.document_id === r.document_id &&
              n.task_type === "INDEX" &&
              n.version_number > r.version_number &&
              n.status === "SUCCEEDED" &&
              n.finished! <= deadline,
          )
          .map((n) => n.finished!);
        const deleted = rows.some(
          (x) =>
            x.document_id === r.document_id &&
            x.task_type === "DELETE" &&
            x.version_number >= r.version_number &&
            x.created <= deadline,
        );
        if (successes.length) [outcome, at] = ["good", Math.min(...successes)];
        else if (deleted) outcome = null;
        else if (now >= deadline) [outcome, at] = ["bad", deadline];
        else outcome = "pending";
      } else if (now >= deadline) [outcome, at] = ["bad", deadline];
      else outcome = "pending";
      if (outcome === "pending") acc.pending++;
      if ((outcome === "good" || outcome === "bad") && at! > windowStart) {
        acc[outcome]++;
        const day = new Date(at!).toISOString().slice(0, 10);
        const d = acc.days.get(day) ?? [0, 0];
        d[outcome === "good" ? 0 : 1]++;
        acc.days.set(day, d);
      }
    }
  }
  return out;
}

const M = 60;
// Publishes are placed half a minute off the minute, and the random ones last whole minutes, so
// none is decided within 30 s of a boundary (its deadline against now, the window's start) while
// the test runs; no two durations add up to a target, so no successor lands on a deadline.
const ago = (minutes: number) => minutes * M + 30;

describe("freshness SLO figures", () => {
  it("count each kind of publish as the rule says (a tenant worked out by hand)", async () => {
    await insertTasks("hand", [
      // good: searchable in 40 s
      { doc: "a", version: 1, status: "SUCCEEDED", createdAgo: ago(60), took: 40 },
      // bad: searchable after 20 minutes
      { doc: "b", version: 1, status: "SUCCEEDED", createdAgo: ago(120), took: 1200 },
      // bad: DEAD after 30 s (no wait for the deadline: it will not become searchable by itself)
      { doc: "c", version: 1, status: "DEAD", createdAgo: ago(1), took: 30 },
      // bad: stuck PENDING for 10 minutes; pending: waiting 2 minutes, within its 5
      { doc: "d", version: 1, status: "PENDING", createdAgo: ago(10), took: null },
      { doc: "e", version: 1, status: "RUNNING", createdAgo: ago(2), took: null },
      // good: v1 superseded after 20 s by v2, which was searchable 60 s after v1 was published
      { doc: "f", version: 1, status: "SUPERSEDED", createdAgo: ago(30), took: 20 },
      { doc: "f", version: 2, status: "SUCCEEDED", createdAgo: ago(30) - 20, took: 40 },
      // v1 superseded in time, but v2 (itself good, in 250 s) was searchable 350 s after v1's publish: v1 bad
      { doc: "g", version: 1, status: "SUPERSEDED", createdAgo: ago(40), took: 100 },
      { doc: "g", version: 2, status: "SUCCEEDED", createdAgo: ago(40) - 100, took: 250 },
      // withdrawn: superseded by a delete within its deadline; not counted
      { doc: "h", version: 1, status: "SUPERSEDED", createdAgo: ago(50), took: 60 },
      { doc: "h", version: 1, type: "DELETE", status: "SUCCEEDED", createdAgo: ago(50) - 60, took: 5 },
      // not publishes: a REINDEX, late, and a DEAD one
      { doc: "a", version: 1, type: "REINDEX", status: "SUCCEEDED", createdAgo: ago(5), took: 9000 },
      // bad and outside the window (decided 30 days ago): not counted
      { doc: "i", version: 1, status: "DEAD", createdAgo: ago(30 * 24 * 60), took: 10 },
      // CANCELLED and RESOLVED: bad
      { doc: "j", version: 1, status: "CANCELLED", createdAgo: ago(3 * 24 * 60), took: 100 },
      { doc: "k", version: 1, status: "RESOLVED", createdAgo: ago(2 * 24 * 60), took: 900 },
    ]);
    const { status, body } = await call(R.slo, "GET", { params: { tenant: "hand" } });
    expect(status).toBe(200);
    // good: a, f1, f2, g2 = 4; bad: b, c, d, g1, j, k = 6; pending: e.
    expect(body).toMatchObject({ tenant: "hand", objective: 0.99, targetSeconds: 300, windowDays: 28 });
    expect({ good: body.good, bad: body.bad, pending: body.pending }).toEqual({ good: 4, bad: 6, pending: 1 });
    expect(body.compliance).toBeCloseTo(0.4, 12);
    expect(body.budgetRemaining).toBeCloseTo(1 - 0.6 / 0.01, 9);
    const days = body.days as { day: string; good: number; bad: number }[];
    expect(days).toHaveLength(29);
    expect(days.reduce((a, d) => a + d.good, 0)).toBe(4);
    expect(days.reduce((a, d) => a + d.bad, 0)).toBe(6);
  });

  it("equal a direct computation over the tasks table, on the list, the tenant page and /api/metrics", async () => {
    // A random month of publishes in two tenants, one with its own objective and target.
    let seed = 20261205;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    const TOOK = [60, 120, 420, 900, 1500, 2400] as const;
    for (const tenant of ["bulk-a", "bulk-b"]) {
      const tasks: Task[] = [];
      for (let d = 0; d < 80; d++) {
        const versions = 1 + Math.floor(rand() * 3);
        // At least 200 minutes ago, so a chain of three versions has finished before now.
        let createdAgo = ago(200 + Math.floor(rand() * 31 * 24 * 60));
        for (let v = 1; v <= versions; v++) {
          const last = v === versions;
          const status = last
            ? pick(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "DEAD", "PENDING", "CANCELLED"])
            : "SUPERSEDED";
          const took = status === "PENDING" ? null : pick(TOOK);
          tasks.push({ doc: `d${d}`, version: v, status, createdAgo, took });
          if (!last) createdAgo -= took!; // the next version is published when this one is superseded
        }
        if (rand() < 0.1)
          tasks.push({
            doc: `d${d}`,
            version: versions,
            type: "DELETE",
            status: "SUCCEEDED",
            createdAgo: createdAgo - 1,
            took: 2,
          });
        if (rand() < 0.2)
          tasks.push({ doc: `d${d}`, version: versions, type: "REINDEX", status: "DEAD", createdAgo: ago(3), took: 1 });
      }
      await insertTasks(tenant, tasks);
    }
    await insertTasks("quiet", []);
    await t.pool.query(`INSERT INTO tenants (id, name) VALUES ('quiet', 'quiet') ON CONFLICT DO NOTHING`);
    const put = await call(R.slo, "PUT", {
      params: { tenant: "bulk-b" },
      body: { objective: 0.95, targetSeconds: 600 },
    });
    expect(put.status).toBe(200);

    const want = await direct(
      new Map([
        ["hand", { target: 300 }],
        ["bulk-a", { target: 300 }],
        ["bulk-b", { target: 600 }],
        ["quiet", { target: 300 }],
      ]),
      28,
    );
    const list = await call(R.list, "GET");
    expect(list.status).toBe(200);
    const items = list.body.items as {
      tenant: string;
      objective: number;
      good: number;
      bad: number;
      pending: number;
      compliance: number | null;
      budgetRemaining: number | null;
    }[];
    expect(items.map((i) => i.tenant).sort()).toEqual(["bulk-a", "bulk-b", "hand", "quiet"]);
    const scrape = await scrapeDashboard(BOOT);
    const gauge = (name: string, labels: string) =>
      Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, "m").exec(scrape)?.[1] ?? NaN);
    for (const item of items) {
      const w = want.get(item.tenant)!;
      expect({ tenant: item.tenant, good: item.good, bad: item.bad, pending: item.pending }).toEqual({
        tenant: item.tenant,
        good: w.good,
        bad: w.bad,
        pending: w.pending,
      });
      const objective = item.tenant === "bulk-b" ? 0.95 : 0.99;
      expect(item.objective).toBe(objective);
      const total = w.good + w.bad;
      if (total === 0) {
        expect(item.compliance).toBeNull();
        expect(item.budgetRemaining).toBeNull();
        expect(scrape).not.toMatch(new RegExp(`^indexwright_slo_freshness_ratio\\{tenant="${item.tenant}"`, "m"));
      } else {
        expect(item.compliance).toBeCloseTo(w.good / total, 12);
        expect(item.budgetRemaining).toBeCloseTo(1 - w.bad / total / (1 - objective), 9);
        expect(gauge("indexwright_slo_freshness_ratio", `tenant="${item.tenant}",window="28d"`)).toBeCloseTo(
          w.good / total,
          12,
        );
        expect(gauge("indexwright_slo_freshness_error_budget_remaining", `tenant="${item.tenant}"`)).toBeCloseTo(
          item.budgetRemaining!,
          9,
        );
      }
      expect(gauge("indexwright_slo_freshness_events", `tenant="${item.tenant}",window="28d"`)).toBe(total);
      expect(gauge("indexwright_slo_freshness_objective", `tenant="${item.tenant}"`)).toBe(objective);

      const page = await call(R.slo, "GET", { params: { tenant: item.tenant } });
      expect(page.status).toBe(200);
      expect({ good: page.body.good, bad: page.body.bad, budgetRemaining: page.body.budgetRemaining }).toEqual({
        good: item.good,
        bad: item.bad,
        budgetRemaining: item.budgetRemaining,
      });
      const days = Object.fromEntries(
        (page.body.days as { day: string; good: number; bad: number }[])
          .filter((d) => d.good + d.bad > 0)
          .map((d) => [d.day, [d.good, d.bad]]),
      );
      expect(days).toEqual(Object.fromEntries(w.days));
    }
    expect(want.get("bulk-a")!.good + want.get("bulk-a")!.bad).toBeGreaterThan(60);
    // Worst first: least budget left, the tenant with nothing decided last.
    const budgets = items.map((i) => i.budgetRemaining);
    expect(budgets.at(-1)).toBeNull();
    const known = budgets.filter((b): b is number => b !== null);
    expect(known).toEqual([...known].sort((a, b) => a - b));
  });

  it("reads the window's publishes through the freshness index and the backlog's, never the whole task table", async () => {
    const c = await t.pool.connect();
    try {
      await c.query(`SET enable_seqscan = off`);
      const { freshnessSummary } = await import("../../lib/slo/sql");
      const s = freshnessSummary(["bulk-a"], { objective: 0.99, targetSeconds: 300, windowDays: 28 });
      const plan = (await c.query<{ "QUERY PLAN": string }>(`EXPLAIN ${s.text}`, s.values)).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
      expect(plan).toContain("index_tasks_freshness_idx");
      // The unfinished publishes through the backlog's own indexes: no partial index matched a plain
      // "status IN (PENDING, RUNNING, RETRY_WAIT)", and every read went through the whole table.
      expect(plan).toContain("index_tasks_due_idx");
      expect(plan).toContain("index_tasks_lease_idx");
      expect(plan).not.toMatch(/Seq Scan on index_tasks/);
    } finally {
      await c.query(`RESET enable_seqscan`);
      c.release();
    }
  });
});

describe("a tenant's own objective", () => {
  const state = async (tenant: string) =>
    (
      await t.pool.query<{ o: number | null; s: number | null; audits: number }>(
        `SELECT freshness_objective AS o, freshness_target_seconds AS s,
                (SELECT count(*)::int FROM audit_log WHERE action = 'tenant.slo.update' AND tenant_id = $1) AS audits
           FROM tenants WHERE id = $1`,
        [tenant],
      )
    ).rows[0];
  const token = async (role: string, tenants: string[]) =>
    (await call(R.tokens, "POST", { body: { name: `slo-${role}-${tenants.join("-")}`, role, tenants } })).body
      .token as string;

  it("is set by an admin, audited with the values before and after, and null returns to the default", async () => {
    await docId("own", "x");
    const before = await state("own");
    const admin = await token("admin", ["own"]);
    const r = await call(R.slo, "PUT", { params: { tenant: "own" }, body: { objective: 0.999 }, token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      objective: 0.999,
      targetSeconds: 300,
      custom: { objective: true, targetSeconds: false },
    });
    expect(await state("own")).toEqual({ o: 0.999, s: null, audits: before.audits + 1 });
    const audit = (
      await t.pool.query(
        `SELECT actor, detail FROM audit_log WHERE action = 'tenant.slo.update' AND tenant_id = 'own' ORDER BY id DESC LIMIT 1`,
      )
    ).rows[0];
    expect(audit.detail).toMatchObject({
      from: { objective: null, targetSeconds: null },
      to: { objective: 0.999, targetSeconds: null },
    });
    const back = await call(R.slo, "PUT", {
      params: { tenant: "own" },
      body: { objective: null, targetSeconds: 120 },
      token: admin,
    });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({
      objective: 0.99,
      targetSeconds: 120,
      custom: { objective: false, targetSeconds: true },
    });
    expect(await state("own")).toEqual({ o: null, s: 120, audits: before.audits + 2 });
  });

  it("refuses bad values with stable codes, every problem at once, and writes nothing", async () => {
    const cases: [unknown, string, string[]][] = [
      [{}, "SLO_INVALID", ["NOTHING_TO_SET"]],
      [{ objective: 1 }, "SLO_INVALID", ["OBJECTIVE_OUT_OF_RANGE"]],
      [{ objective: 99 }, "SLO_INVALID", ["OBJECTIVE_OUT_OF_RANGE"]],
      [{ objective: 0.2, targetSeconds: 5.5 }, "SLO_INVALID", ["OBJECTIVE_OUT_OF_RANGE", "TARGET_NOT_WHOLE"]],
      [{ targetSeconds: 5 }, "SLO_INVALID", ["TARGET_OUT_OF_RANGE"]],
      [{ targetSeconds: 86_401 }, "SLO_INVALID", ["TARGET_OUT_OF_RANGE"]],
      [{ objective: "0.99" }, "VALIDATION_FAILED", []],
      [{ objective: 0.99, window: 7 }, "VALIDATION_FAILED", []],
    ];
    const before = await state("own");
    for (const [body, code, problems] of cases) {
      const r = await call(R.slo, "PUT", { params: { tenant: "own" }, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error?.code, JSON.stringify(body)).toBe(code);
      const got = ((r.body.error as { details?: { problems?: { code: string }[] } }).details?.problems ?? []).map(
        (p) => p.code,
      );
      expect(got, JSON.stringify(body)).toEqual(problems);
    }
    expect(await state("own")).toEqual(before);
  });

  it("is refused to anyone but an admin of the tenant, writing nothing", async () => {
    const before = await state("own");
    await docId("other", "x");
    for (const [role, tenants, code] of [
      ["operator", ["own"], "FORBIDDEN"],
      ["viewer", ["own"], "FORBIDDEN"],
      ["admin", ["other"], "FORBIDDEN"],
    ] as const) {
      const r = await call(R.slo, "PUT", {
        params: { tenant: "own" },
        body: { objective: 0.9 },
        token: await token(role, [...tenants]),
      });
      expect(r.status, `${role} of ${tenants}`).toBe(403);
      expect(r.body.error?.code).toBe(code);
    }
    // Readers of the tenant see the figures; readers of another do not.
    expect(
      (await call(R.slo, "GET", { params: { tenant: "own" }, token: await token("viewer", ["own"]) })).status,
    ).toBe(200);
    expect(
      (await call(R.slo, "GET", { params: { tenant: "own" }, token: await token("viewer", ["other"]) })).status,
    ).toBe(403);
    const limited = await call(R.list, "GET", { token: await token("viewer", ["other"]) });
    expect((limited.body.items as { tenant: string }[]).map((i) => i.tenant)).toEqual(["other"]);
    expect(await state("own")).toEqual(before);
    expect((await call(R.slo, "PUT", { params: { tenant: "nobody" }, body: { objective: 0.9 } })).status).toBe(404);
  });
});
