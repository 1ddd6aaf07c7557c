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
