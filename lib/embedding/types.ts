import { toSql } from "pgvector";

/** One interface for every embedding provider. */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /** Returns one vector per text, in order. Throws TaskError with an EMBEDDING_* code. */
  embed(texts: string[], signal: AbortSignal): Promise<number[][]>;
  /** Milliseconds until the provider may be called again (an open circuit breaker); absent or 0 = now. */
  unavailableForMs?(): number;
}

/** Model and dimensions: vectors are comparable only within one space. */
export type EmbeddingSpace = { model: string; dimensions: number };

export function spaceOf(e: Embedder): EmbeddingSpace {
  return { model: e.model, dimensions: e.dimensions };
}

/** pgvector's text form of a vector, for a `$n::vector` parameter (the package's own `toSql` is typed `any`). */
export const toVectorLiteral = (v: number[]): string => toSql(v);
