import type { Config } from "../config";
import type { Embedder } from "./types";
import { embedLocal, LOCAL_MODEL } from "../pipeline/local-embedder";
import { TaskError } from "../queue/errors";

export class LocalEmbedder implements Embedder {
  readonly model = LOCAL_MODEL;
  constructor(readonly dimensions = 384) {}
  async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    signal.throwIfAborted();
    return embedLocal(texts, this.dimensions);
  }
}

export function createEmbedder(cfg: Config): Embedder {
  if (cfg.EMBEDDING_PROVIDER === "local") return new LocalEmbedder(cfg.EMBEDDING_DIMENSIONS ?? 384);
  throw new TaskError("EMBEDDING_PROVIDER_UNAVAILABLE", `embedding provider ${cfg.EMBEDDING_PROVIDER} is not available in this build`);
}
