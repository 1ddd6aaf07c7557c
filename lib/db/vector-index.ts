/** pgvector's HNSW limit for `vector` (4-byte floats): larger dimensions are indexed as `halfvec`. */
export const VECTOR_HNSW_MAX_DIMENSIONS = 2000;
/** pgvector's HNSW limit for `halfvec` (2-byte floats), and so the largest dimension we accept. */
export const HNSW_MAX_DIMENSIONS = 4000;

export type IndexedVector = { type: "vector" | "halfvec"; ops: "vector_cosine_ops" | "halfvec_cosine_ops" };

/**
 * The type a dimension is indexed, and so searched, as. Up to 2,000 dimensions the full-precision
 * `vector`; above, `halfvec`, whose HNSW index goes to 4,000 at half the size. Search must cast to
 * the same type as the index expression, or the planner cannot use the index.
 */
export function indexedVector(dims: number): IndexedVector {
  if (!Number.isInteger(dims) || dims < 1 || dims > HNSW_MAX_DIMENSIONS) {
    throw new Error(
      `invalid embedding dimension ${dims}: HNSW indexes at most ${HNSW_MAX_DIMENSIONS} dimensions (as halfvec)`,
    );
  }
  return dims > VECTOR_HNSW_MAX_DIMENSIONS
    ? { type: "halfvec", ops: "halfvec_cosine_ops" }
    : { type: "vector", ops: "vector_cosine_ops" };
}

/** The index expression and search cast for a dimension, e.g. `::halfvec(3072)`. */
export function vectorCast(dims: number): string {
  return `::${indexedVector(dims).type}(${dims})`;
}
