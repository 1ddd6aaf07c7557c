import { loadConfig } from "../../lib/config";
import { LocalEmbedder } from "../../lib/embedding";
import { Worker } from "../../worker/loop";
import type { TestDb } from "./db";

/** An in-process worker against a test database, with test-friendly timings. */
export function testWorker(t: TestDb, id: string, env: Record<string, string> = {}, concurrency = 2): Worker {
  const cfg = loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "10", LOG_LEVEL: "silent", ...env });
  return new Worker({ pool: t.pool, databaseUrl: t.url, workerId: id, concurrency, cfg, embedder: new LocalEmbedder(384) });
}

export async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
