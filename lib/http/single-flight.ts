/**
 * Requests that arrive while the same read is already running share its answer instead of
 * starting another. The overview and the metrics are a handful of fleet-wide aggregates that every
 * open dashboard polls: under many viewers, identical queries queued behind each other on the
 * database were most of their latency. Nothing is kept once the read settles, so an answer is never
 * older than the query that produced it, and a read that fails fails every caller sharing it.
 */
const running = new Map<string, Promise<unknown>>();

export function singleFlight<T>(key: string, read: () => Promise<T>): Promise<T> {
  const current = running.get(key) as Promise<T> | undefined;
  if (current) return current;
  const started = read().finally(() => running.delete(key));
  running.set(key, started);
  return started;
}

// Settled answers of sharedRead, by key, with when their read started.
const settled = new Map<string, { at: number; value: unknown }>();
const SETTLED_MAX = 1000;

/**
 * singleFlight, and an answer kept for `maxAgeMs` after its read started: every open dashboard
 * polls the overview and the activity chart, and with many viewers the same aggregates would be
 * computed once per viewer per poll. Within the interval they are computed once per process.
 * The age counts from the read's start, so no answer is older than `maxAgeMs` plus one read;
 * a failed read is not kept. 0 keeps nothing (singleFlight alone).
 */
export async function sharedRead<T>(
  key: string,
  maxAgeMs: number,
  read: () => Promise<T>,
  /** A caller who wrote at this time (ms) takes no answer read before it: it sees its own change. */
  notBefore: number | null = null,
): Promise<T> {
  if (maxAgeMs <= 0) return singleFlight(key, read);
  const hit = settled.get(key);
  const now = Date.now();
  if (hit && now - hit.at < maxAgeMs && (notBefore === null || hit.at > notBefore)) return hit.value as T;
  // A caller who just wrote does not join a read that may have started before its write either.
  if (notBefore !== null && now - notBefore < maxAgeMs) return read();
  return singleFlight(key, async () => {
    const at = Date.now();
    const value = await read();
    settled.delete(key);
    settled.set(key, { at, value });
    if (settled.size > SETTLED_MAX) settled.delete(settled.keys().next().value as string);
    return value;
  });
}
