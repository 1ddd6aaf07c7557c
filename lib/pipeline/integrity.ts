import { createHash } from "node:crypto";
import type { Queryable } from "../db/pool";
import { TaskError } from "../queue/errors";
import { runHot } from "../queue/engine";

/**
 * What an index version must hold, fixed right after chunking and before any embedding or write:
 * the number of records and a digest of (ordinal, chunk id, content hash) in order. The switch
 * compares the rows the database actually holds against it, and also recomputes every row's
 * content hash from its stored text, so a lost, duplicated, reordered or altered row fails the
 * switch instead of becoming searchable.
 */
export type Manifest = { count: number; digest: string };

type Entry = { ordinal: number; chunkId: string; contentHash: string };

export function manifestOf(records: readonly Entry[]): Manifest {
  const lines = [...records]
    .sort((a, b) => a.ordinal - b.ordinal)
    .map((r) => `${r.ordinal}:${r.chunkId}:${r.contentHash}`);
  return { count: records.length, digest: createHash("sha256").update(lines.join("\n")).digest("hex") };
}

// What the database holds for an index version, computed from its stored rows (never from what
// the writer sent): count, distinct chunk ids, digest in ordinal order, content hashes recomputed
// from the stored text, and each record's vector: it must be the one stored for this record's
// document and content (a record pointing at another text's vector would answer for the wrong
// words) and have the configured dimension (chunk_vectors_dims_match holds the stored vector to
// its row's dims, so the check reads no vector).
const CHECK_COLUMNS = `count(*)::int AS n,
              count(DISTINCT c.chunk_id)::int AS distinct_ids,
              encode(sha256(convert_to(string_agg(c.ordinal || ':' || c.chunk_id || ':' || c.content_hash, E'\\n' ORDER BY c.ordinal), 'UTF8')), 'hex') AS digest,
              count(*) FILTER (WHERE c.content_hash <> encode(sha256(convert_to(c.section_path || E'\\n' || c.text, 'UTF8')), 'hex'))::int AS bad_hash,
              count(*) FILTER (WHERE v.content_hash IS DISTINCT FROM c.content_hash OR v.document_id IS DISTINCT FROM c.document_id)::int AS bad_vector,
              count(*) FILTER (WHERE v.dims IS DISTINCT FROM $2)::int AS bad_dims`;
const CHECKED_ROWS = `chunks c LEFT JOIN chunk_vectors v ON v.id = c.vector_id`;

type Stored = {
  n: number;
  distinct_ids: number;
  digest: string | null;
  bad_hash: number;
  bad_vector: number;
  bad_dims: number;
};

function judge(r: Stored, expected: Manifest, dimensions: number): TaskError | null {
  const problems: string[] = [];
  if (r.n !== expected.count) problems.push(`${r.n} records, expected ${expected.count}`);
  if (r.distinct_ids !== r.n) problems.push(`${r.n - r.distinct_ids} duplicate chunk ids`);
  if (r.n === expected.count && r.digest !== expected.digest) problems.push("records differ from the parse manifest");
  if (r.bad_hash > 0) problems.push(`${r.bad_hash} records whose text does not match their content hash`);
  if (r.bad_vector > 0) problems.push(`${r.bad_vector} records whose vector is not the one stored for their content`);
  if (r.bad_dims > 0) problems.push(`${r.bad_dims} records with a dimension other than ${dimensions}`);
  return problems.length > 0
    ? new TaskError("INDEX_INTEGRITY_FAILED", `index version failed its integrity check: ${problems.join("; ")}`)
    : null;
}

/**
 * Whether each stored index version of a task batch matches its parse manifest exactly, in one
 * statement: each version is judged on its own against its own manifest. Returns, per version,
 * the stored record count or the INDEX_INTEGRITY_FAILED error of that version alone.
 */
export async function verifyIndexVersions(
  db: Queryable,
  versions: { indexVersionId: string; expected: Manifest }[],
  dimensions: number,
): Promise<Map<string, { count: number } | { error: TaskError }>> {
  const ids = versions.map((v) => v.indexVersionId);
  const rows = (
    await runHot<Stored & { id: string }>(db, {
      text: `SELECT wanted.id::text, s.*
         FROM unnest($1::uuid[]) AS wanted(id)
         CROSS JOIN LATERAL (SELECT ${CHECK_COLUMNS} FROM ${CHECKED_ROWS} WHERE c.index_version_id = wanted.id) s`,
      values: [ids, dimensions],
    })
  ).rows;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = new Map<string, { count: number } | { error: TaskError }>();
  for (const v of versions) {
    const r = byId.get(v.indexVersionId) ?? {
      n: 0,
      distinct_ids: 0,
      digest: null,
      bad_hash: 0,
      bad_vector: 0,
      bad_dims: 0,
    };
    const error = judge(r, v.expected, dimensions);
    out.set(v.indexVersionId, error ? { error } : { count: r.n });
  }
  return out;
}
