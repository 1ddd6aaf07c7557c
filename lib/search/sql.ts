import { vectorCast } from "../db/vector-index";

/**
 * The limit is written into the statement rather than bound: search statements run as named
 * statements (lib/search/search.ts), and the server plans a named statement once for all calls
 * only when that generic plan costs about what a plan for the actual values does. With the limit
 * a parameter, the planner must assume a tenth of the table is wanted, the generic plan's cost is
 * hundreds of times the real one, and every call was planned again. One statement per limit
 * (topK is 1..100, hybrid depth up to 300) keeps that estimate exact.
 */
/**
 * The index space a statement reads: its id (written into the text) and dimensions. `shadow`: the
 * space is not the tenant's active one but a migration's candidate (or the previous space after a
 * switch), whose pointers are `space_pointers` rows of that space instead of `search_pointers`;
 * evaluations and the gate of a switch read it (docs/evaluation.md). Search itself never does,
 * and its statements are the same text as before shadow reads existed
 * (test/search/sql.snapshot.test.ts).
 */
export type SqlSpace = { id: number; dims: number; shadow?: boolean };

/** The pointer relation as `sp`, and the condition that keeps a join to it in the space. */
const pointersOf = (space: SqlSpace) => (space.shadow ? "space_pointers sp" : "search_pointers sp");
const inPointerSpace = (space: SqlSpace) => (space.shadow ? ` AND sp.space_id = ${checkSpace(space.id)}` : "");

function checkSpace(id: number): number {
  if (!Number.isInteger(id) || id < 1) throw new Error(`index space id must be a positive integer, got ${id}`);
  return id;
}

function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new Error(`search limit must be an integer from 1 to 10000, got ${limit}`);
}

/**
 * What a caller may see of a chunk: it belongs to the index version its document's search
 * pointer names (so never a half-built or a retained rollback version), built with the query's
 * embedding model, of a live document whose pointed-at version's ACL is empty (whole tenant) or
 * names one of the caller's principals, and so does the ACL of the latest published (business)
 * version when another version serves: a re-publish that restricts a document applies to search
 * at its commit, not when its build switches (or never, if the build is cancelled, force-closed or
 * paused, or a rollback pins an older version). Parameters: $4 principals; the tenant's active
 * index space is written into the text (a literal, so the planner can match the space's partial
 * HNSW index): a search embedded in one space never reads another's versions, even when a switch
 * moved the pointers between its embedding and its statement (lib/search/search.ts runs it again).
 */
const visibleFrom = (space: SqlSpace) => `${pointersOf(space)}
      JOIN index_versions iv ON iv.id = sp.index_version_id
      JOIN documents d ON d.id = sp.document_id
      JOIN document_versions dv ON dv.document_id = sp.document_id AND dv.version_number = sp.version_number`;
const visibleWhere = (
  space: number,
  shadow = false,
) => `${shadow ? `sp.space_id = ${space} AND ` : ""}iv.space_id = ${space} AND d.deleted_at IS NULL AND (cardinality(dv.acl) = 0 OR dv.acl && $4::text[])
                    AND (d.business_version = sp.version_number OR EXISTS (
                          SELECT 1 FROM document_versions bv WHERE bv.document_id = d.id AND bv.version_number = d.business_version
                             AND (cardinality(bv.acl) = 0 OR bv.acl && $4::text[])))`;

/**
 * Nearest visible chunks to $2, as rows of `candidates` (document id, chunk, distance).
 *
 * Vectors are stored once per (document, content, embedding space) in chunk_vectors and
 * referenced by the records of every index version holding that content; a record of the
 * serving version is what makes a vector visible.
 *
 * HNSW (`exact` false): the index yields the tenant's vectors nearest first and each is tested
 * for visibility as it comes (a correlated EXISTS of index lookups: the document's pointer, its
 * serving version's record of this vector, the ACL), so with pgvector's iterative scan the walk
 * goes on until `limit` visible vectors have passed or hnsw.max_scan_tuples is reached: vectors the
 * caller may not see, and those only retained versions still reference, never take a result slot.
 * `OFFSET 0` keeps the EXISTS a per-row filter of the index scan: flattened into a join, the
 * planner would rather start from the visible documents and sort all their chunks (hundreds of ms
 * on a large tenant). Each vector found then names its records in the serving version (more than
 * one where a document repeats a passage), and the nearest `limit` records are the candidates.
 *
 * Exact: the tenant's visible (document, index version) pairs are gathered once, every record of
 * the tenant is checked against them and its vector's distance taken, then ranked; the "+ 0"
 * keeps the planner off the index.
 *
 * An iterative scan in relaxed order may return a slightly farther vector before a nearer one, so
 * the caller sorts the candidates again.
 * Parameters: $1 tenant, $2 query vector, $3 level or null, $4 principals. The space and the limit
 * are written into the text (see checkLimit).
 */
export function vectorCandidatesSql(space: SqlSpace, exact: boolean, limit: number): string {
  checkLimit(limit);
  const { dims } = space;
  const VISIBLE_FROM = visibleFrom(space);
  const VISIBLE_WHERE = visibleWhere(checkSpace(space.id), space.shadow);
  const cast = vectorCast(dims);
  const distance = `v.embedding${cast} <=> $2${cast}`;
  const level = `($3::int IS NULL OR c.level = $3::int)`;
  if (exact) {
    return `SELECT c.document_id, c.chunk_id, c.section_path, c.text, c.level, (${distance}) + 0 AS distance
    FROM chunks c
    JOIN chunk_vectors v ON v.id = c.vector_id
   WHERE c.tenant_id = $1 AND c.dims = ${dims} AND ${level}
     AND (c.document_id, c.index_version_id) IN (
         SELECT sp.document_id, sp.index_version_id FROM ${VISIBLE_FROM}
          WHERE sp.tenant_id = $1 AND ${VISIBLE_WHERE})
   ORDER BY distance, c.chunk_id
   LIMIT ${limit}`;
  }
  return `SELECT c.document_id, c.chunk_id, c.section_path, c.text, c.level, nearest.distance
    FROM (SELECT v.id, v.document_id, ${distance} AS distance
            FROM chunk_vectors v
           WHERE v.tenant_id = $1 AND v.space_id = ${space.id}
             AND EXISTS (
                 SELECT 1 FROM ${VISIBLE_FROM}
                   JOIN chunks c ON c.vector_id = v.id AND c.index_version_id = sp.index_version_id
                  WHERE sp.document_id = v.document_id AND ${VISIBLE_WHERE} AND ${level}
                 OFFSET 0)
           ORDER BY ${distance}
           LIMIT ${limit}) nearest
    JOIN ${pointersOf(space)} ON sp.document_id = nearest.document_id${inPointerSpace(space)}
    JOIN chunks c ON c.vector_id = nearest.id AND c.index_version_id = sp.index_version_id
   WHERE ${level}
   ORDER BY nearest.distance, c.chunk_id
   LIMIT ${limit}`;
}

/** Candidates with their document key and version, best first by `score` (a column of them). */
function withKeys(space: SqlSpace, candidates: string, score: "distance" | "rank"): string {
  return `WITH candidates AS MATERIALIZED (
  ${candidates})
SELECT d.key, sp.version_number, x.chunk_id, x.section_path, x.text, x.level, x.${score} AS score
  FROM candidates x
  JOIN documents d ON d.id = x.document_id
  JOIN ${pointersOf(space)} ON sp.document_id = x.document_id${inPointerSpace(space)}
 ORDER BY x.${score} ${score === "rank" ? "DESC" : "ASC"}, x.chunk_id`;
}

/** Nearest visible chunks with their document key and version, nearest first (`score` = distance). */
export function vectorSearchSql(space: SqlSpace, exact: boolean, limit: number): string {
  return withKeys(space, vectorCandidatesSql(space, exact, limit), "distance");
}

/**
 * Visible chunks matching the words of $2 (PostgreSQL full-text search, web-search syntax: quoted
 * phrases, `or`, `-word`), best first by ts_rank_cd (`score`). The terms are stored once per
 * content with its vector (chunk_vectors.tsv, GIN-indexed), so like the vector side this matches
 * stored content and keeps what a record of the document's serving version references (the same
 * visibility test, `OFFSET 0` keeping it a per-row filter), then names those records. The query is
 * parsed with the tenant's text search configuration ($6, the one its content's `tsv` was
 * generated with), passed as a value rather than looked up in the statement: only a constant
 * tsquery lets the planner estimate the match and take the GIN index (looked up inline, it started
 * from the visible documents and tested every chunk of the tenant: 450 ms against 0.3 ms at 20,000
 * chunks). It reads the versions the tenant's active space serves (the same rule as the vector
 * side), so the two lists of a hybrid search rank the same chunks; the terms are the same in any
 * space, so full-text answers do not change at a switch except where the chunking did.
 * Parameters: $1 tenant, $2 query text, $3 level or null, $4 principals, $5 text search
 * configuration; the space and the limit are written into the text.
 */
export function textSearchSql(space: SqlSpace, limit: number): string {
  checkLimit(limit);
  const VISIBLE_FROM = visibleFrom(space);
  const VISIBLE_WHERE = visibleWhere(checkSpace(space.id), space.shadow);
  const level = `($3::int IS NULL OR c.level = $3::int)`;
  return withKeys(
    space,
    `SELECT c.document_id, c.chunk_id, c.section_path, c.text, c.level, matched.rank
    FROM (SELECT v.id, v.document_id, ts_rank_cd(v.tsv, q.tsq) AS rank
            FROM (SELECT websearch_to_tsquery($5::regconfig, $2) AS tsq) q,
                 chunk_vectors v
           WHERE v.tsv @@ q.tsq AND v.tenant_id = $1 AND v.space_id = ${space.id}
             AND EXISTS (
                 SELECT 1 FROM ${VISIBLE_FROM}
                   JOIN chunks c ON c.vector_id = v.id AND c.index_version_id = sp.index_version_id
                  WHERE sp.document_id = v.document_id AND ${VISIBLE_WHERE} AND ${level}
                 OFFSET 0)
           ORDER BY rank DESC, v.id
           LIMIT ${limit}) matched
    JOIN ${pointersOf(space)} ON sp.document_id = matched.document_id${inPointerSpace(space)}
    JOIN chunks c ON c.vector_id = matched.id AND c.index_version_id = sp.index_version_id
   WHERE ${level}
   ORDER BY matched.rank DESC, c.chunk_id
   LIMIT ${limit}`,
    "rank",
  );
}

/** The tenant's active index space (the default one when the tenant has no row yet). */
export const TENANT_SPACE_SQL = `SELECT coalesce((SELECT active_space_id FROM tenants WHERE id = $1), indexwright_default_space()) AS space_id`;

/** The tenant's text search configuration (english when the tenant has no row yet). */
export const TENANT_LANGUAGE_SQL = `SELECT coalesce((SELECT search_language::text FROM tenants WHERE id = $1), 'english') AS language`;

/** Bounded count of a tenant's records of one dimension (what an exact search reads), through the tenant index. */
export function tenantSizeSql(dims: number): string {
  return `SELECT count(*)::int AS n FROM (SELECT 1 FROM chunks WHERE tenant_id = $1 AND dims = ${dims} LIMIT $2) s`;
}
