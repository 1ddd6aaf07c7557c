import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { listDocuments } from "../../lib/documents/repository";
import { DOCUMENT_STATE_SQL, LATEST_TASK_JOIN, pointerJoin } from "../../lib/documents/state";
import { DOCUMENT_STATE } from "../../lib/domain/constants";
import { LOCAL_MODEL } from "../../lib/pipeline/local-embedder";

// The documents list narrows each state filter with an index-backed condition (rare states) or
// reads batches in list order (SEARCHABLE). Either way a page must hold exactly the documents the
// state rule gives, in list order: checked here against the rule applied to every document,
// page by page through the cursors, with pages small enough that SEARCHABLE needs several batches.

let t: TestDb;
const space = { model: LOCAL_MODEL, dimensions: 384 };

/** Document n's situation, cycling through every way to reach each state. */
const KINDS = [
  "searchable",
  "dead",
  "pending",
  "running",
  "retry",
  "deleted",
  "never-indexed",
  "unpublished",
  "older-model-below",
  "older-model-above",
  "same-model-other-dims",
  "resolved-drift",
  "first-version-pending",
] as const;
type Kind = (typeof KINDS)[number];

/** Long runs of one kind, so SEARCHABLE documents are far apart in places and batches come back short of matches. */
function kindOf(n: number): Kind {
  if (n >= 40 && n < 130) return n % 9 === 0 ? "searchable" : KINDS[1 + (n % (KINDS.length - 1))];
  return KINDS[n % KINDS.length];
}

async function seed(): Promise<void> {
  const q = (text: string, values: unknown[] = []) => t.pool.query(text, values);
  await q(`INSERT INTO tenants (id, name) VALUES ('ta', 'A'), ('tb', 'B')`);
  for (let n = 0; n < 200; n++) {
    const kind = kindOf(n);
    const tenant = n % 3 === 0 ? "tb" : "ta";
    const bv = kind === "unpublished" ? 0 : kind === "first-version-pending" ? 1 : 2;
    const { rows } = await q(
      `INSERT INTO documents (id, tenant_id, key, title, business_version, updated_at, deleted_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, now() - make_interval(secs => $5::int / 2), CASE WHEN $6 THEN now() END) RETURNING id`,
      // Two documents share each updated_at, so the cursor's id tie-break is exercised too.
      [tenant, `doc-${n}`, `Document ${n}`, bv, n, kind === "deleted"],
    );
    const id = rows[0].id as string;
    for (let v = 1; v <= bv; v++) {
      await q(
        `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by)
         VALUES (gen_random_uuid(), $1, $2, $3, 't', 'text/plain', '\\x00', 1, 'x', 'test')`,
        [tenant, id, v],
      );
    }
    if (bv === 0) continue;
    const latest: Record<string, string> = {
      dead: "DEAD",
      pending: "PENDING",
      running: "RUNNING",
      retry: "RETRY_WAIT",
      "resolved-drift": "RESOLVED",
      "first-version-pending": "PENDING",
    };
    const status = latest[kind] ?? "SUCCEEDED";
    for (let v = 1; v <= bv; v++) {
      const s = v < bv ? "SUCCEEDED" : status;
      await q(
        `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, lease_owner, lease_until, error_code)
         VALUES ($1, $2, $3, 'INDEX', $4, CASE WHEN $4 = 'RUNNING' THEN 'w' END, CASE WHEN $4 = 'RUNNING' THEN now() + interval '1 minute' END,
                 CASE WHEN $4 IN ('DEAD', 'RETRY_WAIT') THEN 'PARSE_ERROR' END)`,
        [tenant, id, v, s],
      );
    }
    if (kind === "never-indexed" || kind === "first-version-pending") continue;
    // The served version: the business version when its task succeeded, otherwise the one before.
    const served = status === "SUCCEEDED" ? bv : bv - 1;
    const model =
      kind === "older-model-below" ? "aaa-older-model" : kind === "older-model-above" ? "zzz-older-model" : LOCAL_MODEL;
    const dims = kind === "same-model-other-dims" ? 768 : 384;
    const iv = await q(
      `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
       VALUES (gen_random_uuid(), $1, $2, $3, 'ACTIVE', 'c', $4, $5, 1, 1) RETURNING id`,
      [tenant, id, served, model, dims],
    );
    if (kind !== "deleted")
      await q(
        `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, $2, $3, $4)`,
        [id, tenant, iv.rows[0].id, served],
      );
  }
  await q(`ANALYZE`);
}

/** The rule applied to every document, in list order: what each filtered list must show. */
async function expected(state: string, opts: { tenant?: string; withSpace: boolean }): Promise<string[]> {
  const join = opts.withSpace ? pointerJoin("$1", "$2") : pointerJoin();
  const { rows } = await t.pool.query<{ key: string; tenant_id: string; state: string }>(
    `SELECT d.key, d.tenant_id, ${DOCUMENT_STATE_SQL} AS state FROM documents d ${join} ${LATEST_TASK_JOIN} ORDER BY d.updated_at DESC, d.id DESC`,
    opts.withSpace ? [space.model, space.dimensions] : [],
  );
  return rows.filter((r) => r.state === state && (!opts.tenant || r.tenant_id === opts.tenant)).map((r) => r.key);
}

async function listed(state: string, opts: { tenant?: string; withSpace: boolean; limit: number }): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await listDocuments(
      t.pool,
      { tenants: null, tenant: opts.tenant, state, cursor, limit: opts.limit },
      opts.withSpace ? space : undefined,
    );
    expect(r.items.length).toBeLessThanOrEqual(opts.limit);
    for (const d of r.items) expect(d.state).toBe(state);
    keys.push(...r.items.map((d) => d.key));
    if (!r.nextCursor) return keys;
    // A cursor is only handed out when another match follows.
    expect(r.items.length).toBe(opts.limit);
    cursor = r.nextCursor;
  }
  throw new Error("paging did not end");
}

beforeAll(async () => {
  t = await createTestDb();
  await seed();
});
afterAll(async () => t?.close());

describe("documents list, filtered by state: exactly the rule's documents, in list order, through every page", () => {
  for (const state of Object.values(DOCUMENT_STATE)) {
    it(state, async () => {
      for (const withSpace of [true, false]) {
        for (const tenant of [undefined, "tb"]) {
          const want = await expected(state, { tenant, withSpace });
          for (const limit of [1, 4, 50])
            expect(
              await listed(state, { tenant, withSpace, limit }),
              `${state} tenant=${tenant} space=${withSpace} limit=${limit}`,
            ).toEqual(want);
        }
      }
    });
  }

  it("the seed reaches every state, with SEARCHABLE documents sparse enough to need several batches for a page", async () => {
    for (const state of Object.values(DOCUMENT_STATE))
      expect((await expected(state, { withSpace: true })).length, state).toBeGreaterThan(2);
    // Between two SEARCHABLE documents in list order lie more documents than a first batch for a page of four reads.
    const { rows } = await t.pool.query<{ state: string }>(
      `SELECT ${DOCUMENT_STATE_SQL} AS state FROM documents d ${pointerJoin("$1", "$2")} ${LATEST_TASK_JOIN} ORDER BY d.updated_at DESC, d.id DESC`,
      [space.model, space.dimensions],
    );
    let gap = 0;
    let widest = 0;
    for (const r of rows) {
      gap = r.state === "SEARCHABLE" ? 0 : gap + 1;
      widest = Math.max(widest, gap);
    }
    expect(widest).toBeGreaterThan(2 * (4 + 1));
  });

  it("documents in an older embedding space are NOT_INDEXED, whether its model sorts before or after the current one or only its dimensions differ", async () => {
    const keys = await listed("NOT_INDEXED", { withSpace: true, limit: 200 });
    for (const kind of [
      "older-model-below",
      "older-model-above",
      "same-model-other-dims",
      "never-indexed",
      "unpublished",
    ] as const) {
      const n = [...Array(200).keys()].filter((i) => kindOf(i) === kind);
      expect(n.length, kind).toBeGreaterThan(0);
      for (const i of n) expect(keys, `${kind} doc-${i}`).toContain(`doc-${i}`);
    }
  });
});
