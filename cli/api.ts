import { readFileSync } from "node:fs";
import path from "node:path";
import { createIndexwrightClient, type IndexwrightClient } from "../lib/client";

// How the CLI reaches a running server: its URL and a token, from flags, the environment, or the
// bootstrap token file a local `indexwright start` wrote.

export function apiBase(url?: string): string {
  return (url ?? process.env.INDEXWRIGHT_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`).replace(/\/$/, "");
}

export function apiToken(t?: string): string {
  if (t) return t;
  if (process.env.INDEXWRIGHT_TOKEN) return process.env.INDEXWRIGHT_TOKEN;
  if (process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN) return process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN;
  const file = path.join(process.env.INDEXWRIGHT_DATA_DIR ?? ".indexwright", "bootstrap-token");
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    throw new Error(`no token: pass --token, set INDEXWRIGHT_TOKEN, or run next to ${file}`);
  }
}

export function connect(values: { url?: string; token?: string }): IndexwrightClient {
  return createIndexwrightClient({ baseUrl: apiBase(values.url), token: apiToken(values.token) });
}

/** The flags every command that talks to the server takes. */
export const CONNECTION_OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean" },
} as const;

/** File extensions the server parses, and the content type each is published as. */
export const CONTENT_TYPES: Record<string, string> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".txt": "text/plain",
  ".text": "text/plain",
  ".html": "text/html",
  ".htm": "text/html",
  ".pdf": "application/pdf",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

export const contentTypeOf = (file: string): string | undefined => CONTENT_TYPES[path.extname(file).toLowerCase()];
