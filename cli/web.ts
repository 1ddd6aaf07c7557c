import cluster from "node:cluster";
import http from "node:http";
import { availableParallelism } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadConfig, loadProxyConfig, PRIVATE_NETWORKS, proxyNetworks, setEnv, tracingSettings } from "../lib/config";
import { loadEnvFiles } from "../lib/env-files";
import type { BlockList } from "node:net";
import { clientAddress, fromProxy } from "../lib/http/client-address";

const DEFAULT_PROXY_NETWORKS = proxyNetworks(PRIVATE_NETWORKS);
import { allowHeader, routeFor } from "../lib/http/routes";
import { log } from "../lib/log";
import { startTracing } from "../lib/tracing-setup";

const NEXT_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function sendJson(
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(body);
}

/**
 * Requests answered here, before Next: ones Next cannot route (it answers TRACE with a plain-text
 * 500 and other methods outside its seven with an empty 400), and ones whose meaning is ambiguous.
 * Returns true when it answered.
 */
function refuseEarly(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const method = (req.method ?? "").toUpperCase();
  let pathname = "/";
  try {
    pathname = new URL(req.url ?? "/", "http://localhost").pathname;
  } catch {
    /* an unparsable target is left to Next, which answers 400 */
  }
  if (!NEXT_METHODS.has(method)) {
    if (!pathname.startsWith("/api/")) {
      sendJson(res, 405, "METHOD_NOT_ALLOWED", `${method} is not allowed`, { allow: "GET, HEAD" });
      return true;
    }
    const route = routeFor(pathname);
    if (!route) sendJson(res, 404, "NOT_FOUND", `no API route at ${pathname}`);
    else
      sendJson(
        res,
        405,
        "METHOD_NOT_ALLOWED",
        `${method} is not allowed on ${pathname} (allowed: ${allowHeader(route.methods)})`,
        { allow: allowHeader(route.methods) },
      );
    return true;
  }
  // Node keeps the first of two Authorization headers and drops the rest; a proxy in front may keep
  // the last. Rather than act as whichever one we happened to read, refuse the request.
  let authorizations = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i].toLowerCase() === "authorization") authorizations++;
  if (authorizations > 1) {
    sendJson(res, 401, "UNAUTHORIZED", "send one Authorization header");
    return true;
  }
  return false;
}

// The dashboard's web process: Next.js behind a small Node HTTP server (Next's custom-server API).
// `next start` keeps an X-Forwarded-For the client sent and only fills it in from the socket when
// it is missing, so any client could name its own address. Here the header is rewritten first,
// to the one address we trust (lib/http/client-address.ts), and Next and the routes read that.
//
// Run without `--conditions=react-server` (cli/start.ts): Next loads React's server builds itself,
// per bundle, and rendering breaks when the whole process resolves them.

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void;

/** An HTTP server that sets X-Forwarded-For to the trusted client address, then hands the request to `handle`. */
export function createWebServer(handle: Handler, hops: number, proxies?: BlockList): http.Server {
  return http.createServer((req, res) => {
    if (refuseEarly(req, res)) return;
    const peer = clientAddress(req.socket.remoteAddress, undefined, 0);
    const viaProxy = hops > 0 && fromProxy(peer, proxies ?? DEFAULT_PROXY_NETWORKS);
    req.headers["x-forwarded-for"] = viaProxy
      ? clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], hops, proxies ?? DEFAULT_PROXY_NETWORKS)
      : peer;
    if (!viaProxy) {
      // Not from a proxy we trust, so nothing the caller says about the original host or scheme is
      // believed either: Next fills these in from the connection (they decide the same-origin check
      // and the Secure cookie flag). Behind a proxy, set TRUST_PROXY_HOPS and they are kept.
      delete req.headers["x-forwarded-host"];
      delete req.headers["x-forwarded-proto"];
      delete req.headers["x-forwarded-port"];
    }
    // Other headers that claim to name the client are dropped, so nothing behind us can read an unchecked one.
    delete req.headers["x-real-ip"];
    delete req.headers["forwarded"];
    Promise.resolve()
      .then(() => handle(req, res))
      .catch((err: unknown) => {
        // The path only: a query string can carry a sign-in code or a token.
        log.error(
          { err, method: req.method, path: (req.url ?? "").split("?")[0] },
          "unhandled error in the web server",
        );
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
          res.end(JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "internal error" } }));
        } else res.destroy();
      });
  });
}

/**
 * The first request to a route runs code nothing has run yet in this process (the route's bundle,
 * the data layer's first query, the schemas): measured on the embedded database, the first publish
 * and the first read of a document took 100–300 ms more than the next ones. So before the port
 * opens, the routes a new user's first minute hits are asked once each, through the same handler,
 * on a port of their own on 127.0.0.1: reads of a document that does not exist, and a publish
 * whose body is refused before anything is written. Nothing is written; with no bootstrap token
 * only the public routes are asked.
 */
async function warmUp(handle: Handler, token: string | undefined): Promise<void> {
  const started = performance.now();
  const server = createWebServer(handle, 0);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as import("node:net").AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const doc = "/api/v1/tenants/warm-up/documents/warm-up";
  const asks: [string, string, RequestInit][] = [
    ["GET", "/api/health", {}],
    ...(token
      ? ([
          ["GET", doc, { headers: auth }],
          ["POST", `${doc}/versions`, { headers: { ...auth, "content-type": "application/json" }, body: "{}" }],
          ["GET", "/api/v1/documents?limit=1", { headers: auth }],
          ["GET", "/api/v1/overview", { headers: auth }],
        ] as [string, string, RequestInit][])
      : []),
  ];
  try {
    for (const [method, p, init] of asks)
      await fetch(base + p, { ...init, method, signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer());
    log.info({ ms: Math.round(performance.now() - started) }, "warmed up the first routes");
  } catch (err) {
    // A slow start is not a failed one: the routes warm up on their first real request instead.
    log.warn({ err: (err as Error).message }, "warming up the first routes failed");
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function main(): Promise<void> {
  // Under `npm start` the launcher already loaded them; run on its own, PORT is read before Next would.
  loadEnvFiles();
  const cfg = loadConfig();
  const { TRUST_PROXY_HOPS: hops, TRUSTED_PROXY_ADDRESSES: proxies } = loadProxyConfig();
  // Before Next loads, so Next's own request spans find the provider and ours nest under them.
  const tracing = startTracing("web", tracingSettings());
  // `next start` sets this before Next loads; a custom server has to.
  setEnv("NODE_ENV", "production");
  const { default: next } = await import("next");
  const dir = process.cwd();
  const app = next({ dev: false, dir, hostname: "localhost", port: cfg.PORT });
  await app.prepare();
  await warmUp(app.getRequestHandler(), cfg.INDEXWRIGHT_BOOTSTRAP_TOKEN);
  const server = createWebServer(app.getRequestHandler(), hops, proxies);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(cfg.PORT, () => resolve());
  });
  log.info(
    { port: cfg.PORT, trustedProxyHops: hops },
    `listening on port ${cfg.PORT}, client address from ${hops === 0 ? "the connection (no trusted proxies)" : `X-Forwarded-For, ${hops} trusted proxy hop(s)`}`,
  );

  let closing = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, "stopping: finishing requests in progress");
    // Stop accepting, let requests in flight finish (idle keep-alive connections are closed now,
    // busy ones after the grace period), then let Next release what it holds.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), cfg.SHUTDOWN_GRACE_SECONDS * 1000).unref();
    await closed;
    await app.close().catch((err: unknown) => log.error({ err }, "error while closing Next"));
    await tracing?.shutdown();
    // A clean exit: cli/start.ts reads code 0 as a shutdown, not a crash.
    process.exit(0);
  };
  process.on("SIGINT", (s) => void stop(s));
  process.on("SIGTERM", (s) => void stop(s));
}

/** How many web processes WEB_PROCESSES asks for ("auto": one per core). */
export function webProcesses(setting: number | "auto", cores = availableParallelism()): number {
  return setting === "auto" ? Math.max(1, cores) : setting;
}

/**
 * Several web processes on one port (WEB_PROCESSES): this process forks them and hands out the
 * connections (node:cluster), restarts one that crashes, and passes a stop signal on, exiting 0
 * once all have finished their requests. Each is the one-process server above, with its own pool
 * and its own share of the database's connections (PG_POOL_MAX each).
 */
function superviseWebProcesses(count: number): void {
  let stopping = false;
  const fork = () => {
    const child = cluster.fork();
    child.on("exit", (code, signal) => {
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
        return;
      }
      log.error({ code, signal, pid: child.process.pid }, "a web process exited; starting another in 1 s");
      setTimeout(() => !stopping && fork(), 1000);
    });
  };
  for (let i = 0; i < count; i++) fork();
  log.info({ processes: count }, `web: ${count} processes share the port`);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
  };
  process.on("SIGINT", (s) => stop(s));
  process.on("SIGTERM", (s) => stop(s));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  loadEnvFiles();
  const count = cluster.isPrimary ? webProcesses(loadConfig().WEB_PROCESSES) : 1;
  if (count > 1) superviseWebProcesses(count);
  else
    main().catch((err: unknown) => {
      log.fatal({ err }, `web server stopped: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
