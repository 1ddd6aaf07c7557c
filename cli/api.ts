import { readFileSync } from "node:fs";
import path from "node:path";
import { createIndexwrightClient, type IndexwrightClient } from "../lib/client";
import { setting } from "../lib/config";

// How the CLI reaches a running server: its URL and a token, from flags, the environment, or the
// bootstrap token file a local `indexwright start` wrote.

export function apiBase(url?: string): string {
  return (url ?? setting("INDEXWRIGHT_URL") ?? `http://127.0.0.1:${setting("PORT") ?? 3000}`).replace(/\/$/, "");
}

export function apiToken(t?: string): string {
  if (t) return t;
  const token = setting("INDEXWRIGHT_TOKEN") || setting("INDEXWRIGHT_BOOTSTRAP_TOKEN");
  if (token) return token;
  const file = path.join(setting("INDEXWRIGHT_DATA_DIR") ?? ".indexwright", "bootstrap-token");
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
