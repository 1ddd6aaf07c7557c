/** One interface for every embedding provider. */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /** Returns one vector per text, in order. Throws TaskError with an EMBEDDING_* code. */
  embed(texts: string[], signal: AbortSignal): Promise<number[][]>;
  /** Milliseconds until the provider may be called again (an open circuit breaker); absent or 0 = now. */
  unavailableForMs?(): number;
}

export function toVectorLiteral(v: number[]): string {
  return `[${v.join(",")}]`;
}
