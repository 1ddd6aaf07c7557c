import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { loadConfig } from "../../lib/config";
import { publish } from "../../lib/documents/publish";
import { LocalEmbedder } from "../../lib/embedding";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import { startMigration } from "../../lib/spaces/repository";
import { personPrincipal, type Principal } from "../../lib/auth/principal";
import { DomainError } from "../../lib/domain/errors";
import {
  getEvaluationRun,
  getEvaluationSet,
  listEvaluationRuns,
  putEvaluationSet,
  startEvaluationRun,
} from "../../lib/evaluation/repository";
import { runPendingEvaluations } from "../../lib/evaluation/runner";
import { whyNotInActiveSpace } from "../../lib/evaluation/evaluate";
import type { EvaluationQuery, EvaluationSetBody, QueryResult } from "../../lib/evaluation/schemas";
import { Worker } from "../../worker/loop";

// Golden sets, runs and the diagnosis of every miss, on documents a real worker built: a set is
// versioned and refused whole on bad input; a run's figures equal a direct computation over the
// ranks it stored; each stage of the diagnosis is named for a document that is DEAD, ACL-hidden,
// not built in the space searched, chunked away (its words never reached a chunk) and ranked low;
// a run reads a migration's candidate through its shadow pointers; queries searching as
// principals the reader may not search as are hidden from that reader.

const TENANT = "ev";
let t: TestDb;
let worker: Worker;
const spaces = new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });
const maintainer = personPrincipal("maint@example.com", "maintainer", [TENANT], ["staff"]);
const operator = personPrincipal("ops@example.com", "operator", [TENANT]);

const TOPICS = [
  ["refund", "refunds are paid back to the original card within fourteen days of the return"],
  ["vacation", "vacation days accrue monthly and carry over until the end of march"],
  ["expense", "expense reports need a receipt for every item above twenty euros"],
  ["laptop", "laptops are replaced every four years by the service desk"],
  ["pension", "the pension plan matches contributions up to five percent of salary"],
  ["overtime", "overtime is compensated as time off at one and a half hours per hour"],
] as const;

async function publishDoc(key: string, content: string, opts: { acl?: string[]; contentType?: string } = {}) {
  return publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: opts.contentType ?? "text/markdown",
    content: Buffer.from(content),
    acl: opts.acl ?? [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: 3,
  });
}

const parkingDoc = (i: number) =>
  `# Parking permit ${i}\n\nThe parking permit for garage ${i}: a parking permit is issued per car; parking permit holders park in garage ${i}. Parking permit renewals are yearly.`;

const served = async (key: string) =>
  (
    await t.pool.query(
      `SELECT 1 FROM documents d JOIN search_pointers sp ON sp.document_id = d.id AND sp.version_number = d.business_version
        WHERE d.tenant_id = $1 AND d.key = $2`,
      [TENANT, key],
    )
  ).rows.length > 0;

beforeAll(async () => {
  t = await createTestDb();
  // A DEAD build, set by hand before any worker runs: the document never served (FAILED).
  const dead = await publishDoc("dead-policy", "# Dead policy\n\nThe relocation allowance covers moving costs.");
  await t.pool.query(
    `UPDATE index_tasks SET status = 'DEAD', error_code = 'EMBEDDING_TIMEOUT', error_message = 'provider timed out', finished_at = now() WHERE task_id = $1`,
    [dead.taskId],
  );
  const cfg = loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "10", LOG_LEVEL: "silent" });
  worker = new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: "ev-w",
    concurrency: 2,
    cfg,
    embedder: spaces.preset!,
    spaces,
  });
  await worker.start();
  for (const [topic, text] of TOPICS) await publishDoc(`policy-${topic}`, `# ${topic} policy\n\n${text}.`);
  await publishDoc("finance-bonus", "# Bonus policy\n\nThe annual bonus is paid in december to finance staff.", {
    acl: ["group:finance"],
  });
  // Chunked away: the words the question uses sit in a <script>, which the HTML parser never indexes.
  await publishDoc(
    "faq-page",
    `<html><body><h1>Office FAQ</h1><p>Opening hours are nine to five.</p><script>var note = "badge replacement costs ten euros";</script></body></html>`,
    { contentType: "text/html" },
  );
  for (let i = 0; i < 14; i++) await publishDoc(`parking-${i}`, parkingDoc(i));
  await publishDoc(
    "parking-history",
    "# Site history\n\nThe site opened in 1990. The canteen, the library and the gardens were added later; the parking came last. A long text about architecture, lighting, heating and the history of the old mill follows here.",
  );
  await publishDoc("to-delete", "# Old policy\n\nThe typewriter policy is retired.");
  const keys = [...TOPICS.map(([k]) => `policy-${k}`), "finance-bonus", "faq-page", "parking-history", "to-delete"];
  for (let i = 0; i < 14; i++) keys.push(`parking-${i}`);
  await waitFor(async () => (await Promise.all(keys.map(served))).every(Boolean), 60_000);
  await t.pool.query(`UPDATE documents SET deleted_at = now() WHERE tenant_id = $1 AND key = 'to-delete'`, [TENANT]);
}, 120_000);

afterAll(async () => {
  await worker?.stop(5_000);
  await t?.close();
});

const QUERIES: EvaluationQuery[] = [
  { query: "refund to the original card", relevant: ["policy-refund"] },
  {
    query: "vacation days carry over",
    relevant: ["policy-vacation", "policy-overtime"],
    grades: { "policy-vacation": 3, "policy-overtime": 1 },
  },
  { query: "expense receipt", relevant: ["policy-expense"] },
  { query: "relocation allowance moving costs", relevant: ["dead-policy"] },
  { query: "annual bonus december", relevant: ["finance-bonus"] },
  { query: "badge replacement", relevant: ["faq-page"] },
  { query: "parking permit", relevant: ["parking-history"] },
  { query: "typewriter policy", relevant: ["to-delete"] },
  { query: "how is the intranet search tuned", relevant: ["never-published"] },
  { query: "annual bonus for finance", relevant: ["finance-bonus"], principals: ["group:finance"] },
];

const stageOf = (r: QueryResult, key: string) => r.relevant.find((x) => x.key === key)?.diagnosis?.stage ?? null;

async function runAndWait(p: Principal, body: Parameters<typeof startEvaluationRun>[3] = {}) {
  const run = await startEvaluationRun(t.pool, p, TENANT, body);
  expect(run.state).toBe("PENDING");
  expect(await runPendingEvaluations(t.pool, spaces, "test-runner")).toBeGreaterThanOrEqual(1);
  return getEvaluationRun(t.pool, p, TENANT, run.id);
}

describe("golden sets", () => {
  it("refuses a bad set whole with each problem's code, and versions every change", async () => {
    const bad: EvaluationSetBody = {
      queries: [
        { query: "a", relevant: ["x", "x"] },
        { query: "b", relevant: ["y"], grades: { z: 2 } },
        { query: "c", relevant: ["y"], grades: { y: 0 } },
        { query: "A", relevant: ["y"] },
      ],
    };
    const err = await putEvaluationSet(t.pool, maintainer, TENANT, bad).catch((e: DomainError) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("EVALUATION_SET_INVALID");
    const problems = (err as DomainError).details!.problems as { query: number; code: string }[];
    expect(problems.map((x) => `${x.query}:${x.code}`)).toEqual([
      "0:DUPLICATE_RELEVANT",
      "1:GRADE_NOT_RELEVANT",
      "2:NO_RELEVANT",
      "3:DUPLICATE_QUERY",
    ]);
    const none = await t.pool.query(`SELECT count(*)::int AS n FROM evaluation_sets`);
    expect(none.rows[0].n).toBe(0);

    // A maintainer may not name principals they are not; an operator may (audited on the set's row).
    const named = await putEvaluationSet(t.pool, maintainer, TENANT, { queries: QUERIES }).catch((e: DomainError) => e);
    expect((named as DomainError).code).toBe("PRINCIPALS_NOT_ALLOWED");
    const v1 = await putEvaluationSet(t.pool, maintainer, TENANT, { queries: QUERIES.slice(0, 3) });
    expect(v1.version).toBe(1);
    const v2 = await putEvaluationSet(t.pool, operator, TENANT, { queries: QUERIES });
    expect(v2.version).toBe(2);
    const got = await getEvaluationSet(t.pool, TENANT);
    expect(got.queries).toHaveLength(QUERIES.length);
    expect(got.versions.map((v) => [v.version, v.queryCount, v.createdBy])).toEqual([
      [2, QUERIES.length, "user:ops@example.com"],
      [1, 3, "user:maint@example.com"],
    ]);
    const audit = await t.pool.query(
      `SELECT actor, detail FROM audit_log WHERE action = 'evaluation_set.update' ORDER BY id`,
    );
    expect(audit.rows.map((r) => [r.actor, r.detail.version, r.detail.principals ?? null])).toEqual([
      ["user:maint@example.com", 1, null],
      ["user:ops@example.com", 2, ["group:finance"]],
    ]);
  });
});

describe("a run", () => {
  let run: Awaited<ReturnType<typeof getEvaluationRun>>;
  beforeAll(async () => {
    // The set names group:finance: a maintainer outside it may not run it.
    const refused = await startEvaluationRun(t.pool, maintainer, TENANT, {}).catch((e: DomainError) => e);
    expect((refused as DomainError).code).toBe("PRINCIPALS_NOT_ALLOWED");
    run = await runAndWait(operator, { mode: "hybrid", topK: 10 });
  }, 60_000);

  it("is DONE with figures equal to a direct computation over the ranks it stored", async () => {
    expect(run.state).toBe("DONE");
    expect(run.progress).toEqual({ done: QUERIES.length, total: QUERIES.length });
    const stored = (
      await t.pool.query(
        `SELECT recall_at_10, mrr_at_10, ndcg_at_10, results, settings FROM evaluation_runs WHERE id = $1`,
        [run.id],
      )
    ).rows[0];
    const results = stored.results as QueryResult[];
    expect(results).toHaveLength(QUERIES.length);
    // Written out here, not through lib/evaluation/metrics.ts: recall, reciprocal rank and nDCG
    // (gain 2^g - 1, discount log2(rank + 1)) of each query from its stored ranks, then the means.
    let recall = 0;
    let rr = 0;
    let ndcg = 0;
    for (const r of results) {
      const rel = r.relevant.filter((x) => x.grade >= 1);
      const top = rel.filter((x) => x.rank !== null && x.rank <= 10);
      recall += top.length / rel.length;
      rr += top.length ? 1 / Math.min(...top.map((x) => x.rank!)) : 0;
      const dcg = top.reduce((a, x) => a + (2 ** x.grade - 1) / Math.log2(x.rank! + 1), 0);
      const idcg = rel
        .map((x) => x.grade)
        .sort((a, b) => b - a)
        .reduce((a, g, i) => a + (2 ** g - 1) / Math.log2(i + 2), 0);
      ndcg += dcg / idcg;
    }
    const n = results.length;
    expect(stored.recall_at_10).toBeCloseTo(recall / n, 12);
    expect(stored.mrr_at_10).toBeCloseTo(rr / n, 12);
    expect(stored.ndcg_at_10).toBeCloseTo(ndcg / n, 12);
    expect(run.figures).toEqual({
      recallAt10: stored.recall_at_10,
      mrrAt10: stored.mrr_at_10,
      ndcgAt10: stored.ndcg_at_10,
    });
    // Not vacuous: some queries are found, some are not.
    expect(recall / n).toBeGreaterThan(0.2);
    expect(recall / n).toBeLessThan(1);
    expect(results[0].relevant[0].rank).toBe(1);
    expect(results[1].graded).toBe(true);
    expect(stored.settings).toMatchObject({ pointers: "active", mode: "hybrid", topK: 10, k: 10 });
    const history = await listEvaluationRuns(t.pool, TENANT);
    expect(history[0]).toMatchObject({ id: run.id, state: "DONE", figures: run.figures });
  });

  it("names the stage that lost each miss", async () => {
    const r = (i: number) => run.queries![i] as QueryResult;
    expect(stageOf(r(3), "dead-policy")).toBe("NOT_SEARCHABLE");
    expect(r(3).relevant[0].diagnosis).toMatchObject({
      state: "FAILED",
      task: { status: "DEAD", errorCode: "EMBEDDING_TIMEOUT" },
    });
    expect(stageOf(r(4), "finance-bonus")).toBe("ACL_EXCLUDED");
    expect(r(4).relevant[0].diagnosis).toMatchObject({ principals: [], acl: { served: ["group:finance"] } });
    expect(stageOf(r(5), "faq-page")).toBe("NO_SHARED_TERMS");
    const closest = r(5).relevant[0].diagnosis!.closestChunk!;
    expect(closest.text).toContain("Opening hours");
    expect(closest.text).not.toContain("badge");
    expect(stageOf(r(6), "parking-history")).toBe("RANKED_LOW");
    const low = r(6).relevant[0].diagnosis!;
    expect(low.rank === null || low.rank! > 10).toBe(true);
    expect(low.kthScore).not.toBeNull();
    if (low.score !== null) expect(low.score).toBeLessThanOrEqual(low.kthScore!);
    expect(stageOf(r(7), "to-delete")).toBe("DELETED");
    expect(stageOf(r(8), "never-published")).toBe("UNKNOWN");
    // Searched as group:finance, the bonus is found.
    expect(r(9).relevant[0].rank).toBe(1);
    expect(stageOf(r(0), "policy-refund")).toBeNull();
  });

  it("hides from a reader the queries it may not search as, and nothing else", async () => {
    const asMaintainer = await getEvaluationRun(t.pool, maintainer, TENANT, run.id);
    expect(asMaintainer.figures).toEqual(run.figures);
    expect(asMaintainer.queries![9]).toEqual({ index: 9, hidden: true });
    expect(asMaintainer.queries!.filter((x) => "hidden" in x)).toHaveLength(1);
    const audit = await t.pool.query(`SELECT detail FROM audit_log WHERE action = 'evaluation.run'`);
    expect(audit.rows.map((x) => x.detail.principals)).toEqual([["group:finance"]]);
  });

  it("answers why for one document, with the same stages", async () => {
    const why = await whyNotInActiveSpace(t.pool, spaces, {
      tenant: TENANT,
      key: "finance-bonus",
      query: "annual bonus december",
      principals: [],
      mode: "vector",
      topK: 10,
    });
    expect(why).toMatchObject({ found: false, diagnosis: { stage: "ACL_EXCLUDED" }, space: "local" });
    const found = await whyNotInActiveSpace(t.pool, spaces, {
      tenant: TENANT,
      key: "finance-bonus",
      query: "annual bonus december",
      principals: ["group:finance"],
      mode: "vector",
      topK: 10,
    });
    expect(found).toMatchObject({ found: true, rank: 1, diagnosis: null });
  });
});

describe("a run against a migration's candidate", () => {
  it("reads the candidate's shadow pointers: a document not built there yet is NOT_BUILT", async () => {
    await t.pool.query(
      `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
       VALUES ('local-256', 'local', 'indexwright-local-hash-v1', 256, 'md-heading-v2')`,
    );
    // MIGRATE work paused: the candidate gets nothing built until the pause is lifted.
    await t.pool.query(`INSERT INTO task_pauses (task_type, paused_by, reason) VALUES ('MIGRATE', 't', 'hold')`);
    const mig = await startMigration(t.pool, operator, TENANT, { space: "local-256" }, 3);
    const before = await runAndWait(operator, { space: "local-256", mode: "vector" });
    expect(before.state).toBe("DONE");
    expect(before.settings).toMatchObject({ pointers: "shadow", space: { name: "local-256", dimensions: 256 } });
    const first = before.queries![0] as QueryResult;
    expect(first.relevant[0].diagnosis).toMatchObject({
      stage: "NOT_BUILT",
      space: "local-256",
      task: { type: "MIGRATE", status: "PENDING" },
    });
    expect(before.figures!.recallAt10).toBe(0);

    await t.pool.query(`DELETE FROM task_pauses WHERE task_type = 'MIGRATE'`);
    await waitFor(async () => {
      const { rows } = await t.pool.query(
        `SELECT count(*)::int AS n FROM index_tasks WHERE tenant_id = $1 AND task_type = 'MIGRATE' AND status IN ('PENDING','RUNNING','RETRY_WAIT')`,
        [TENANT],
      );
      return rows[0].n === 0;
    }, 60_000);
    const after = await runAndWait(operator, { space: "local-256", mode: "vector" });
    expect((after.queries![0] as QueryResult).relevant[0].rank).toBe(1);
    expect(after.figures!.recallAt10).toBeGreaterThan(0.2);
    expect(mig.state).toBe("BUILDING");
    // A space that is neither active nor a shadow is refused.
    await t.pool.query(
      `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
       VALUES ('local-128', 'local', 'indexwright-local-hash-v1', 128, 'md-heading-v2')`,
    );
    const err = await startEvaluationRun(t.pool, operator, TENANT, { space: "local-128" }).catch((e: DomainError) => e);
    expect((err as DomainError).code).toBe("INVALID_STATE");
  }, 120_000);
});
