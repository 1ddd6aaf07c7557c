/**
 * Seconds before attempt `attempt + 1`: min(base·2^(attempt-1), cap), of which the upper half is
 * random ("equal jitter"), so endpoints that failed together do not all come back in the same
 * second, and no wait is shorter than half the plain backoff. A receiver's Retry-After (429, 503)
 * is honoured up to the cap.
 */
export function retryDelaySeconds(
  attempt: number,
  base: number,
  cap: number,
  retryAfterSeconds: number | null = null,
  random: () => number = Math.random,
): number {
  const plain = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  const jittered = plain / 2 + (random() * plain) / 2;
  if (retryAfterSeconds !== null && retryAfterSeconds > jittered) return Math.min(cap, retryAfterSeconds);
  return jittered;
}

/** Retry-After as seconds (delta-seconds or an HTTP date), null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}
