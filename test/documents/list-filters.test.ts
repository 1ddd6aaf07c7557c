import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { listDocuments } from "../../lib/documents/repository";
import { DOCUMENT_STATE_SQL, LATEST_TASK_JOIN, POINTER_JOIN } from "../../lib/documents/state";
import { DOCUMENT_STATE } from "../../lib/domain/constants";
import { LOCAL_MODEL } from "../../lib/pipeline/local-embedder";

// The documents list narrows each state filter with an index-backed condition (rare states) or
// reads batches in list order (SEARCHABLE). Either way a page must hold exactly the documents the
// state rule gives, in list order: checked here against the rule applied to every document,
// page by page through the cursors, with pages small enough that SEARCHABLE needs several batches.
// Each document is judged in its own tenant's active index space: ta and tb are on the default
// (local) space, tc on the space of "zzz-older-model".

let t: TestDb;

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
  "same-model-other-chunker",
  "resolved-drift",
  "first-version-pending",
] as const;
type Kind = (typeof KINDS)[number];

/** Long runs of one kind, so SEARCHABLE documents are far apart in places and batches come back short of matches. */
function kindOf(n: number): Kind {
  if (n >= 40 && n < 130) return n % 9 === 0 ? "searchable" : KINDS[1 + (n % (KINDS.length - 1))];
  return KINDS[n % KINDS.length];
}

/** The space each kind's served version was built in: [name, model, dimensions, chunker version]. */
const SPACES = {
  "older-model-below": ["aaa-older", "aaa-older-model", 384, "c"],
  "older-model-above": ["zzz-older", "zzz-older-model", 384, "c"],
  "same-model-other-dims": ["local-768", LOCAL_MODEL, 768, "c"],
  "same-model-other-chunker": ["local-rechunked", LOCAL_MODEL, 384, "c2"],
} as const;
const tenantOf = (n: number) => (n % 7 === 0 ? "tc" : n % 3 === 0 ? "tb" : "ta");

async function seed(): Promise<void> {
  const q = (text: string, values: unknown[] = []) => t.pool.query(text, values);
  const local = (await q(`SELECT id, model, dimensions FROM embedding_spaces WHERE is_default`)).rows[0];
  const spaceOf = new Map<string, { id: number; model: string; dimensions: number }>();
  for (const [kind, [name, model, dimensions, chunker]] of Object.entries(SPACES)) {
    const { rows } = await q(
      `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version) VALUES ($1, 'local', $2, $3, $4) RETURNING id`,
      [name, model, dimensions, chunker],
    );
    spaceOf.set(kind, { id: rows[0].id, model, dimensions });
  }
  await q(`INSERT INTO tenants (id, name) VALUES ('ta', 'A'), ('tb', 'B')`);
  await q(`INSERT INTO tenants (id, name, active_space_id) VALUES ('tc', 'C', $1)`, [
    spaceOf.get("older-model-above")!.id,
  ]);
  for (let n = 0; n < 200; n++) {
    const kind = kindOf(n);
    const tenant = tenantOf(n);
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
    const built = spaceOf.get(kind) ?? local;
    const iv = await q(
      `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count, space_id)
       VALUES (gen_random_uuid(), $1, $2, $3, 'ACTIVE', 'c', $4, $5, 1, 1, $6) RETURNING id`,
      [tenant, id, served, built.model, built.dimensions, built.id],
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
async function expected(state: string, opts: { tenant?: string } = {}): Promise<string[]> {
  const { rows } = await t.pool.query<{ key: string; tenant_id: string; state: string }>(
    `SELECT d.key, d.tenant_id, ${DOCUMENT_STATE_SQL} AS state FROM documents d ${POINTER_JOIN} ${LATEST_TASK_JOIN} ORDER BY d.updated_at DESC, d.id DESC`,
  );
  return rows.filter((r) => r.state === state && (!opts.tenant || r.tenant_id === opts.tenant)).map((r) => r.key);
}

async function listed(state: string, opts: { tenant?: string; limit: number }): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await listDocuments(t.pool, { tenants: null, tenant: opts.tenant, state, cursor, limit: opts.limit });
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
      for (const tenant of [undefined, "tb", "tc"]) {
        const want = await expected(state, { tenant });
        for (const limit of [1, 4, 50])
          expect(await listed(state, { tenant, limit }), `${state} tenant=${tenant} limit=${limit}`).toEqual(want);
      }
    });
  }

  it("the seed reaches every state, with SEARCHABLE documents sparse enough to need several batches for a page", async () => {
    for (const state of Object.values(DOCUMENT_STATE)) expect((await expected(state)).length, state).toBeGreaterThan(2);
    // Between two SEARCHABLE documents in list order lie more documents than a first batch for a page of four reads.
    const { rows } = await t.pool.query<{ state: string }>(
      `SELECT ${DOCUMENT_STATE_SQL} AS state FROM documents d ${POINTER_JOIN} ${LATEST_TASK_JOIN} ORDER BY d.updated_at DESC, d.id DESC`,
    );
    let gap = 0;
    let widest = 0;
    for (const r of rows) {
      gap = r.state === "SEARCHABLE" ? 0 : gap + 1;
      widest = Math.max(widest, gap);
    }
    expect(widest).toBeGreaterThan(2 * (4 + 1));
  });

  it("documents served from a space other than their tenant's are NOT_INDEXED, whether its model sorts before or after, its dimensions differ or only its chunking; the same version counts as served in a tenant on that space", async () => {
    const keys = await listed("NOT_INDEXED", { limit: 200 });
    const searchable = await listed("SEARCHABLE", { limit: 200 });
    const docs = (kind: Kind, where: (n: number) => boolean) =>
      [...Array(200).keys()].filter((i) => kindOf(i) === kind && where(i));
    const onLocal = (n: number) => tenantOf(n) !== "tc";
    for (const kind of [
      "older-model-below",
      "older-model-above",
      "same-model-other-dims",
      "same-model-other-chunker",
      "never-indexed",
      "unpublished",
    ] as const) {
      const n = docs(kind, onLocal);
      expect(n.length, kind).toBeGreaterThan(0);
      for (const i of n) expect(keys, `${kind} doc-${i}`).toContain(`doc-${i}`);
    }
    // tc is on the space of "zzz-older-model": what the local space built serves nothing there.
    const onTc = (n: number) => tenantOf(n) === "tc";
    expect(docs("searchable", onTc).length).toBeGreaterThan(0);
    for (const i of docs("searchable", onTc)) expect(keys, `tc doc-${i}`).toContain(`doc-${i}`);
    expect(docs("older-model-above", onTc).length).toBeGreaterThan(0);
    for (const i of docs("older-model-above", onTc)) expect(searchable, `tc doc-${i}`).toContain(`doc-${i}`);
  });
});
