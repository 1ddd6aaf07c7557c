// The figures of an evaluation, as pure functions of ranks (docs/evaluation.md#figures): written
// once, used by runs, the gate and the bench, and checked in test/evaluation/metrics.test.ts
// against a direct computation over a run's stored ranks.
import type { SearchHit } from "../search/search";

/** The cut-off of every figure: recall@10, MRR@10, nDCG@10. */
export const K = 10;

export type RankedDocument = { key: string; score: number };

/**
 * A search's answer as documents: each document once, at the position of its best (first) chunk,
 * with that chunk's score. What a reader of a RAG answer sees is which documents it drew on.
 */
export function documentRanking(hits: Pick<SearchHit, "documentKey" | "score">[]): RankedDocument[] {
  const seen = new Set<string>();
  const out: RankedDocument[] = [];
  for (const h of hits) {
    if (seen.has(h.documentKey)) continue;
    seen.add(h.documentKey);
    out.push({ key: h.documentKey, score: h.score });
  }
  return out;
}

/** A relevant document's judgement and where the answer put it (1-based; null = not in it). */
export type Judged = { grade: number; rank: number | null };

/** Gain of a grade: 2^g − 1, so a binary judgement (grade 1) gains 1. */
const gain = (grade: number) => 2 ** grade - 1;
const discount = (rank: number) => 1 / Math.log2(rank + 1);

/** Share of the relevant documents (grade ≥ 1) within the first K. */
export function recallAtK(judged: Judged[], k = K): number {
  const rel = judged.filter((j) => j.grade >= 1);
  if (rel.length === 0) return 0;
  return rel.filter((j) => j.rank !== null && j.rank <= k).length / rel.length;
}

/** 1 / the rank of the first relevant document within the first K, else 0. */
export function reciprocalRankAtK(judged: Judged[], k = K): number {
  const ranks = judged.filter((j) => j.grade >= 1 && j.rank !== null && j.rank <= k).map((j) => j.rank!);
  return ranks.length ? 1 / Math.min(...ranks) : 0;
}

/**
 * nDCG@K: the discounted gain of the relevant documents where the answer put them, over that of the
 * best possible order (the grades sorted, best first). Graded where the set grades, binary
 * otherwise (every relevant document grade 1).
 */
export function ndcgAtK(judged: Judged[], k = K): number {
  const dcg = judged
    .filter((j) => j.grade >= 1 && j.rank !== null && j.rank <= k)
    .reduce((a, j) => a + gain(j.grade) * discount(j.rank!), 0);
  const ideal = judged
    .map((j) => j.grade)
    .filter((g) => g >= 1)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((a, g, i) => a + gain(g) * discount(i + 1), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

export type QueryFigures = { recall: number; reciprocalRank: number; ndcg: number };

export function queryFigures(judged: Judged[]): QueryFigures {
  return { recall: recallAtK(judged), reciprocalRank: reciprocalRankAtK(judged), ndcg: ndcgAtK(judged) };
}

/** A run's figures: the mean of each query's. */
export function meanFigures(queries: QueryFigures[]): { recallAt10: number; mrrAt10: number; ndcgAt10: number } {
  const n = queries.length || 1;
  const sum = (f: (q: QueryFigures) => number) => queries.reduce((a, q) => a + f(q), 0) / n;
  return { recallAt10: sum((q) => q.recall), mrrAt10: sum((q) => q.reciprocalRank), ndcgAt10: sum((q) => q.ndcg) };
}
