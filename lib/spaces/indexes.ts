import type pg from "pg";
import { indexedVector, vectorCast } from "../db/vector-index";
import type { Space } from "./types";

/** The HNSW index of one index space (a partial index over chunk_vectors WHERE space_id = id). */
export function spaceIndexName(spaceId: number): string {
  if (!Number.isInteger(spaceId) || spaceId < 1) throw new Error(`invalid index space id ${spaceId}`);
  return `chunk_vectors_space_${spaceId}_hnsw`;
}

/** The statement that builds a space's HNSW index; IF NOT EXISTS, so it is safe to repeat. */
export function spaceIndexSql(space: Pick<Space, "id" | "dimensions">, concurrently: boolean): string {
  const { ops } = indexedVector(space.dimensions);
  return `CREATE INDEX ${concurrently ? "CONCURRENTLY " : ""}IF NOT EXISTS ${spaceIndexName(space.id)} ON chunk_vectors USING hnsw ((embedding${vectorCast(space.dimensions)}) ${ops}) WHERE space_id = ${space.id}`;
}

/** $1 names a valid index of this schema. */
export const VALID_INDEX_SQL = `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND i.indisvalid`;

/**
 * Whether the space's HNSW index exists and is valid: an interrupted CREATE INDEX CONCURRENTLY
 * leaves an invalid one behind, which pg_indexes still lists but no search can use.
 */
export async function hasSpaceIndex(db: pg.Pool | pg.PoolClient, spaceId: number): Promise<boolean> {
  const { rows } = await db.query(VALID_INDEX_SQL, [spaceIndexName(spaceId)]);
  return rows.length > 0;
}

/**
 * Build the space's HNSW index in one bulk build (docs/decisions/039-index-spaces.md §9), on a
 * connection of its own: `maintenance_work_mem` large enough for the graph to be built in memory and
 * parallel workers are session settings, and CONCURRENTLY (an external PostgreSQL) lets writes into
 * the space go on meanwhile. An index left invalid by an interrupted concurrent build is dropped and
 * built again.
 */
export async function buildSpaceIndex(
  pool: pg.Pool,
  space: Pick<Space, "id" | "dimensions">,
  opts: { concurrently: boolean; memoryMb: number; parallelWorkers: number },
): Promise<{ ms: number }> {
  const client = await pool.connect();
  const t0 = performance.now();
  try {
    const invalid = await client.query(
      `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relname = $1 AND NOT i.indisvalid`,
      [spaceIndexName(space.id)],
    );
    if (invalid.rows.length > 0) await client.query(`DROP INDEX IF EXISTS ${spaceIndexName(space.id)}`);
    await client.query(`SET maintenance_work_mem = '${Math.max(64, Math.floor(opts.memoryMb))}MB'`);
    await client.query(`SET max_parallel_maintenance_workers = ${Math.max(0, Math.floor(opts.parallelWorkers))}`);
    await client.query(spaceIndexSql(space, opts.concurrently));
    return { ms: performance.now() - t0 };
  } finally {
    await client.query("RESET maintenance_work_mem; RESET max_parallel_maintenance_workers").catch(() => undefined);
    client.release();
  }
}
