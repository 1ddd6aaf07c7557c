import type pg from "pg";

/**
 * HNSW needs a fixed dimension, so each embedding dimension in use gets its own partial
 * expression index (see the init migration). 384 ships with the migration; others are made here.
 */
export async function ensureVectorIndex(pool: pg.Pool, dims: number): Promise<void> {
  if (!Number.isInteger(dims) || dims < 1 || dims > 16000) throw new Error(`invalid embedding dimension ${dims}`);
  if (dims === 384) return;
  await pool.query(
    `CREATE INDEX IF NOT EXISTS chunks_embedding_${dims}_hnsw ON chunks USING hnsw ((embedding::vector(${dims})) vector_cosine_ops) WHERE dims = ${dims}`,
  );
}
