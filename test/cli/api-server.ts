import type http from "node:http";
import { readdirSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import type { AddressInfo } from "node:net";
import { createWebServer } from "../../cli/web";
import { routeFor } from "../../lib/http/routes";

// The API over real HTTP without building the Next app: the web process's own server
// (cli/web.ts createWebServer) in front of the route handlers of app/api, picked the way the App
// Router picks them (lib/http/routes.ts routeFor). The CLI under test talks to it as to a
// deployed server.

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
const API_DIR = path.resolve(import.meta.dirname, "../../app/api");

function routeFiles(dir = API_DIR, rel = ""): { pattern: string; file: string }[] {
  const out: { pattern: string; file: string }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...routeFiles(path.join(dir, e.name), `${rel}/${e.name}`));
    else if (e.name === "route.ts") out.push({ pattern: `/api${rel}`, file: path.join(dir, e.name) });
  }
  return out;
}

export type ApiServer = { url: string; close: () => Promise<void> };

/** Starts the server on a free local port. Environment (DATABASE_URL, tokens) must be set before. */
export async function startApiServer(): Promise<ApiServer> {
  const modules = new Map<string, Record<string, unknown>>();
  for (const { pattern, file } of routeFiles()) modules.set(pattern, await import(/* @vite-ignore */ file));
  const catchAll = modules.get("/api/[...rest]")!;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
    const route = routeFor(url.pathname);
    const mod = (route && modules.get(route.path)) ?? catchAll;
    const params: Record<string, string> = {};
    if (route) {
      const want = url.pathname.split("/").filter(Boolean);
      route.path
        .split("/")
        .filter(Boolean)
        .forEach((s, i) => {
          const m = /^\[([^\]]+)\]$/.exec(s);
          if (m) params[m[1]] = decodeURIComponent(want[i]);
        });
    }
    const method = req.method ?? "GET";
    const fn = (mod[method === "HEAD" && !mod.HEAD ? "GET" : method] ?? catchAll[method]) as Handler;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const hasBody = method !== "GET" && method !== "HEAD";
    const request = new Request(url, {
      method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
      duplex: "half",
    } as RequestInit);
    const response = await fn(request, { params: Promise.resolve(params) });
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((v, k) => (out[k] = k === "set-cookie" ? response.headers.getSetCookie() : v));
    res.writeHead(response.status, out);
    if (response.body && method !== "HEAD")
      for await (const chunk of Readable.fromWeb(response.body as never)) res.write(chunk);
    res.end();
  };

  const server = createWebServer(handle, 0);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
