import { handler } from "@/lib/http/handler";
import { renderMetrics } from "@/lib/metrics";
import { db, serverConfig } from "@/lib/server";
import { sharedRead } from "@/lib/http/single-flight";
import { sloDefaults } from "@/lib/config";

export const dynamic = "force-dynamic";

/** For a scraper's token with `metrics:read`, or an all-tenant operator looking at the fleet. */
export const GET = handler("GET /api/metrics", async () => {
  const cfg = serverConfig();
  // One fleet-wide rendering: scrapes within DASHBOARD_SHARED_READ_MS of each other (a Prometheus
  // pair, a second scraper) share it; the gauges it sets are process-wide anyway.
  // A scraper never writes, so there is no caller of its own to wait for.
  const m = await sharedRead("metrics", cfg.DASHBOARD_SHARED_READ_MS, () =>
    renderMetrics(db(), {
      leaseSeconds: cfg.LEASE_SECONDS,
      heartbeatSeconds: cfg.heartbeatSeconds,
      slo: sloDefaults(cfg),
    }),
  );
  return new Response(m.body, { status: 200, headers: { "content-type": m.contentType, "cache-control": "no-store" } });
});

export * from "@/lib/http/method-fallback";
