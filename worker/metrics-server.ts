import http from "node:http";
import type { AddressInfo } from "node:net";
import { workerRegistry } from "../lib/pipeline/metrics";
import { log } from "../lib/log";
import { settings } from "../lib/config";

/**
 * WORKER_METRICS_PORT: unset or empty, no metrics server; `9464`, that port; `9464-9471`, the first
 * free port of the range, so several worker processes on one machine can share one setting (each
 * logs the port it took; Prometheus lists the range); `0`, any free port (for tests).
 */
export type PortRange = { from: number; to: number };

export function parseMetricsPort(value: string | undefined): PortRange | null {
  const v = value?.trim();
  if (!v) return null;
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(v);
  const from = m ? Number(m[1]) : NaN;
  const to = m?.[2] !== undefined ? Number(m[2]) : from;
  if (!m || from > 65535 || to > 65535 || to < from || (from === 0 && to !== 0)) {
    throw new Error(
      `invalid configuration: WORKER_METRICS_PORT: expected a port (9464), a range (9464-9471) or 0, got "${value}"`,
    );
  }
  return { from, to };
}

export type MetricsServer = { port: number; host: string; close: () => Promise<void> };

function listen(server: http.Server, port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (err.code === "EADDRINUSE") resolve(false);
      else reject(err);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve(true);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/**
 * Serves this process's metrics (lib/pipeline/metrics.ts) as GET /metrics, when WORKER_METRICS_PORT
 * asks for it. Unauthenticated, like any Prometheus exporter: the figures carry no tenant, document
 * or task names. Loopback by default, since there is no authentication and a worker often runs on
 * a host with a public address; WORKER_METRICS_HOST widens it (0.0.0.0 for a scraper elsewhere).
 */
export async function startWorkerMetrics(
  env: { WORKER_METRICS_PORT?: string; WORKER_METRICS_HOST?: string } = settings(
    "WORKER_METRICS_PORT",
    "WORKER_METRICS_HOST",
  ),
): Promise<MetricsServer | null> {
  const range = parseMetricsPort(env.WORKER_METRICS_PORT);
  if (!range) return null;
  const host = env.WORKER_METRICS_HOST?.trim() || "127.0.0.1";
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found: metrics are at /metrics\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res
        .writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" })
        .end("method not allowed\n");
      return;
    }
    workerRegistry
      .metrics()
      .then((body) => {
        res.writeHead(200, { "content-type": workerRegistry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : body);
      })
      .catch((err: unknown) => {
        log.error({ err }, "could not render worker metrics");
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("metrics unavailable\n");
      });
  });
  for (let port = range.from; port <= range.to; port++) {
    if (await listen(server, port, host)) {
      const chosen = (server.address() as AddressInfo).port;
      log.info({ port: chosen, host }, `worker metrics on http://${host}:${chosen}/metrics`);
      return {
        port: chosen,
        host,
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      };
    }
  }
  throw new Error(
    `WORKER_METRICS_PORT=${env.WORKER_METRICS_PORT}: ${range.from === range.to ? `port ${range.from} is` : `every port from ${range.from} to ${range.to} is`} in use`,
  );
}
