import { handler, json } from "@/lib/http/handler";
import { overview } from "@/lib/operations/repository";
import { serverConfig, readDb } from "@/lib/server";
import { sharedRead } from "@/lib/http/single-flight";
import { lastWrite } from "@/lib/db/recent-writes";
import { replicaStatus } from "@/lib/db/replica";
import { requestReadSource } from "@/lib/http/request-context";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/overview", async (req, params, p) => {
  const cfg = serverConfig();
  // Callers with the same tenant scope see the same figures: they share one read, for
  // DASHBOARD_SHARED_READ_MS. Per source: a caller who must see its own write reads the primary,
  // and must not be handed the replica's older answer.
  const key = `overview:${requestReadSource()}:${JSON.stringify(p.tenants === null ? null : [...p.tenants].sort())}`;
  const figures = await sharedRead(
    key,
    cfg.DASHBOARD_SHARED_READ_MS,
    () =>
      overview(readDb(), {
        leaseSeconds: cfg.LEASE_SECONDS,
        heartbeatSeconds: cfg.heartbeatSeconds,
        tenants: p.tenants,
      }),
    lastWrite(p.subject)?.at ?? null,
  );
  return json({ ...figures, reads: { ...(await replicaStatus()), answeredFrom: requestReadSource() } });
});

export * from "@/lib/http/method-fallback";
