// The OpenAI embeddings wire format, shared by the in-process fake provider of the unit tests
// (test/helpers/fake-provider.ts) and the fake-services server of the Playwright journeys
// (e2e/services/embeddings.ts). Vectors are deterministic: embedLocal with the requested dimensions.

import type http from "node:http";
import { embedLocal } from "../../lib/pipeline/local-embedder";

/** One item of `data`; `embedding` is a base64 string when the request asked for encoding_format "base64". */
export type EmbeddingItem = { object: string; index: number; embedding: number[] | string };

/** The texts of a request body: `input` as a string or an array (anything else is no texts). */
export function requestTexts(body: Record<string, unknown>): string[] {
  const raw = body.input;
  return typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw.map(String) : [];
}

/** The dimensions a request asks for, or `fallback` when it sends none. */
export function requestDimensions(body: Record<string, unknown>, fallback: number): number {
  return typeof body.dimensions === "number" ? body.dimensions : fallback;
}

/** One correct item per text, in order. */
export function embeddingItems(texts: string[], dims: number): EmbeddingItem[] {
  return embedLocal(texts, dims).map((embedding, index) => ({ object: "embedding", index, embedding }));
}

/** Encodes the vectors as the API does for encoding_format "base64" (little-endian float32); as is otherwise. */
export function encodeItems(items: EmbeddingItem[], encodingFormat: unknown): EmbeddingItem[] {
  if (encodingFormat !== "base64") return items;
  return items.map((d) => ({
    ...d,
    embedding: Buffer.from(new Float32Array(d.embedding as number[]).buffer).toString("base64"),
  }));
}

/** The response body of POST /embeddings. */
export function embeddingsList(data: EmbeddingItem[], model: string, texts: string[]) {
  return { object: "list", data, model, usage: { prompt_tokens: texts.length, total_tokens: texts.length } };
}

/** An API error body as OpenAI sends it (the SDK reads type, code and param from it). */
export function apiError(message: string, type: string, code: string | null = null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

/** Sends a JSON answer unless the response is already gone. */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}
