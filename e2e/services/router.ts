// A tiny HTTP router for the fake-services server: exact paths or `:name` segments, one handler
// per method and pattern. Route groups (embeddings, and later others such as an OpenID provider)
// each export a `mount(router)` function; server.ts mounts them all on one port.

import type http from "node:http";

export type Params = Record<string, string>;
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, params: Params) => void | Promise<void>;

type Route = { method: string; parts: string[]; handler: Handler };

export class Router {
  private readonly routes: Route[] = [];

  /** Adds a route; `pattern` is a path like "/control/rules/:match" (":name" matches one segment). */
  on(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method: method.toUpperCase(), parts: split(pattern), handler });
    return this;
  }

  get(pattern: string, handler: Handler): this {
    return this.on("GET", pattern, handler);
  }

  post(pattern: string, handler: Handler): this {
    return this.on("POST", pattern, handler);
  }

  delete(pattern: string, handler: Handler): this {
    return this.on("DELETE", pattern, handler);
  }

  /** Finds the route for a request: the handler and its params, or why there is none (404 / 405). */
  match(method: string, path: string): { handler: Handler; params: Params } | { status: 404 | 405 } {
    const parts = split(path);
    let pathMatched = false;
    for (const r of this.routes) {
      const params = matchParts(r.parts, parts);
      if (!params) continue;
      pathMatched = true;
      if (r.method === method.toUpperCase()) return { handler: r.handler, params };
    }
    return { status: pathMatched ? 405 : 404 };
  }
}

function split(path: string): string[] {
  return path.split("/").filter((p) => p !== "");
}

function matchParts(pattern: string[], path: string[]): Params | null {
  if (pattern.length !== path.length) return null;
  const params: Params = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(":")) {
      try {
        params[p.slice(1)] = decodeURIComponent(path[i]);
      } catch {
        return null;
      }
    } else if (p !== path[i]) {
      return null;
    }
  }
  return params;
}

/** Reads a request body as JSON; `{}` for an empty body. Throws SyntaxError on invalid JSON. */
export async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new SyntaxError("body is not a JSON object");
  return value as Record<string, unknown>;
}
