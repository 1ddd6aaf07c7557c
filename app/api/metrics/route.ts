import { handler } from "@/lib/http/handler";
import { renderMetrics } from "@/lib/metrics";
import { db, serverConfig } from "@/lib/server";
import { singleFlight } from "@/lib/http/single-flight";
import { sloDefaults } from "@/lib/config";

export const dynamic = "force-dynamic";

/** For a scraper's token with `metrics:read`, or an all-tenant operator looking at the fleet. */
export const GET = handler("GET /api/metrics", async () => {
  const cfg = serverConfig();
  // One fleet-wide rendering: concurrent scrapes share it (the gauges it sets are process-wide).
  const m = await singleFlight("metrics", () =>
    renderMetrics(db(), {
      leaseSeconds: cfg.LEASE_SECONDS,
      heartbeatSeconds: cfg.heartbeatSeconds,
      slo: sloDefaults(cfg),
    }),
  );
  return new Response(m.body, { status: 200, headers: { "content-type": m.contentType, "cache-control": "no-store" } });
});

export * from "@/lib/http/method-fallback";
