export type ProgressSample = { done: number; at: number };

/**
 * Seconds left at the rate observed since `first`, or null while there is no rate to go by
 * (nothing moved yet, finished, or the count went backwards because a new attempt started).
 */
export function etaSeconds(first: ProgressSample, done: number, total: number, now: number): number | null {
  const moved = done - first.done;
  const elapsed = (now - first.at) / 1000;
  if (moved <= 0 || elapsed <= 0 || done >= total) return null;
  return ((total - done) * elapsed) / moved;
}
