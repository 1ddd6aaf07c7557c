import { loadConfig } from "../../lib/config";
import { LocalEmbedder } from "../../lib/embedding";
import type { Embedder } from "../../lib/embedding/types";
import { Worker } from "../../worker/loop";
import type { TestDb } from "./db";

/** An in-process worker against a test database, with test-friendly timings. */
export function testWorker(
  t: TestDb,
  id: string,
  env: Record<string, string> = {},
  concurrency = 2,
  embedder: Embedder = new LocalEmbedder(384),
): Worker {
  const cfg = loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "10", LOG_LEVEL: "silent", ...env });
  return new Worker({ pool: t.pool, databaseUrl: t.url, workerId: id, concurrency, cfg, embedder });
}

/** The local embedder, slowed down per batch, to make tasks outlive several lease lengths. */
export class SlowEmbedder extends LocalEmbedder {
  calls = 0;
  constructor(private readonly delayMs: number) {
    super(384);
  }
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    this.calls++;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, this.delayMs);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          reject(signal.reason);
        },
        { once: true },
      );
    });
    return super.embed(texts, signal);
  }
}

export async function waitFor<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A Markdown document of `n` distinct paragraphs, each its own section-sized chunk material. */
export function longDocument(n: number, tag = ""): string {
  const parts = ["# Handbook " + tag];
  for (let i = 0; i < n; i++) {
    parts.push(
      `## Section ${i}`,
      `Paragraph ${i} ${tag} explains rule number ${i} about topic ${(i * 7919) % 1000} in enough words to be a chunk of its own.`,
    );
  }
  return parts.join("\n\n");
}
