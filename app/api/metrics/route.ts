import { handler } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { renderMetrics } from "@/lib/metrics";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  await authenticate(req);
  const cfg = serverConfig();
  const m = await renderMetrics(db(), { leaseSeconds: cfg.LEASE_SECONDS, heartbeatSeconds: cfg.heartbeatSeconds });
  return new Response(m.body, { status: 200, headers: { "content-type": m.contentType, "cache-control": "no-store" } });
});
