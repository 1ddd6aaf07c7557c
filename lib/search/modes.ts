import { z } from "zod";

/**
 * vector: nearest chunks by embedding; text: PostgreSQL full-text match; hybrid: both lists
 * fused by reciprocal rank fusion. The API and the dashboard default to hybrid.
 */
export const SEARCH_MODES = ["vector", "text", "hybrid"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export const DEFAULT_SEARCH_MODE: SearchMode = "hybrid";

export const searchMode = z.enum(SEARCH_MODES).meta({
  description:
    "vector: nearest chunks by embedding (score = cosine similarity); text: full-text match with the tenant's text search configuration (score = ts_rank_cd); hybrid (default): both, fused by reciprocal rank fusion with k = 60 (score = the fused score).",
});

/** Reciprocal rank fusion's k: a hit's fused score is the sum of 1 / (k + rank) over the lists. */
export const RRF_K = 60;
