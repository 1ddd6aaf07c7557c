import { collectDefaultMetrics, type Registry } from "prom-client";

// prom-client's default process metrics, less the three `nodejs_active_*_total` gauges: a gauge
// named `_total` reads as a counter to Prometheus tooling (`promtool check metrics` fails on it),
// and each is only the sum of its per-type gauge (`nodejs_active_handles{type}` and so on), which
// stays. Shared by the dashboard's /api/metrics and each worker's /metrics.
export function collectProcessMetrics(register: Registry, prefix: string): void {
  collectDefaultMetrics({ register, prefix });
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
    register.removeSingleMetric(prefix + name);
}
