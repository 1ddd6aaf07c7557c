import type { Config } from "../config";
import type { Embedder } from "./types";
import { embedLocal, LOCAL_MODEL } from "../pipeline/local-embedder";
import { TaskError } from "../queue/errors";
import { OpenAIEmbedder } from "./openai";

export { OpenAIEmbedder } from "./openai";

export class LocalEmbedder implements Embedder {
  constructor(
    readonly dimensions = 384,
    /** Another name marks a different embedding space: nothing embedded under the old name is reused. */
    readonly model: string = LOCAL_MODEL,
  ) {}
  async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    signal.throwIfAborted();
    return embedLocal(texts, this.dimensions);
  }
}

export const OPENAI_DEFAULT_MODEL = "text-embedding-3-small";
export const OPENAI_DEFAULT_DIMENSIONS = 1536;

export function createEmbedder(cfg: Config): Embedder {
  if (cfg.EMBEDDING_PROVIDER === "local") return new LocalEmbedder(cfg.EMBEDDING_DIMENSIONS ?? 384);
  if (cfg.EMBEDDING_PROVIDER === "openai") {
    if (!cfg.OPENAI_API_KEY) {
      throw new Error("invalid configuration: EMBEDDING_PROVIDER=openai requires OPENAI_API_KEY to be set");
    }
    return new OpenAIEmbedder({
      apiKey: cfg.OPENAI_API_KEY,
      baseURL: cfg.OPENAI_BASE_URL,
      model: cfg.EMBEDDING_MODEL ?? OPENAI_DEFAULT_MODEL,
      dimensions: cfg.EMBEDDING_DIMENSIONS ?? OPENAI_DEFAULT_DIMENSIONS,
      timeoutMs: cfg.EMBEDDING_TIMEOUT_MS,
    });
  }
  throw new TaskError(
    "EMBEDDING_PROVIDER_UNAVAILABLE",
    `embedding provider ${String(cfg.EMBEDDING_PROVIDER)} is not available in this build`,
  );
}
