import { handler, json } from "@/lib/http/handler";
import { overview } from "@/lib/operations/repository";
import { db, serverConfig } from "@/lib/server";
import { singleFlight } from "@/lib/http/single-flight";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/overview", async (req, params, p) => {
  const cfg = serverConfig();
  // Callers with the same tenant scope see the same figures: concurrent ones share one read.
  const key = `overview:${JSON.stringify(p.tenants === null ? null : [...p.tenants].sort())}`;
  return json(
    await singleFlight(key, () =>
      overview(db(), {
        leaseSeconds: cfg.LEASE_SECONDS,
        heartbeatSeconds: cfg.heartbeatSeconds,
        tenants: p.tenants,
      }),
    ),
  );
});

export * from "@/lib/http/method-fallback";
