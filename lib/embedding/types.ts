/** One interface for every embedding provider. */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /** Returns one vector per text, in order. Throws TaskError with an EMBEDDING_* code. */
  embed(texts: string[], signal: AbortSignal): Promise<number[][]>;
}

export function toVectorLiteral(v: number[]): string {
  return `[${v.join(",")}]`;
}
