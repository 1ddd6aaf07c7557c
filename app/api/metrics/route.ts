import { handler } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { hasCapability, hasRole } from "@/lib/auth/principal";
import { DomainError } from "@/lib/domain/errors";
import { renderMetrics } from "@/lib/metrics";
import { db, embeddingSpace, serverConfig } from "@/lib/server";
import { singleFlight } from "@/lib/http/single-flight";

export const dynamic = "force-dynamic";

/** For a scraper's token with `metrics:read`, or an all-tenant operator looking at the fleet. */
export const GET = handler(async (req) => {
  const p = await authenticate(req, { fleet: true });
  if (!hasCapability(p, "metrics:read") && !hasRole(p, "operator")) throw new DomainError("FORBIDDEN", "metrics need role operator or a token with metrics:read");
  const cfg = serverConfig();
  // One fleet-wide rendering: concurrent scrapes share it (the gauges it sets are process-wide).
  const m = await singleFlight("metrics", () => renderMetrics(db(), { leaseSeconds: cfg.LEASE_SECONDS, heartbeatSeconds: cfg.heartbeatSeconds, space: embeddingSpace() }));
  return new Response(m.body, { status: 200, headers: { "content-type": m.contentType, "cache-control": "no-store" } });
});

export * from "@/lib/http/method-fallback";
