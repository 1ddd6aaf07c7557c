import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { overview } from "@/lib/operations/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  const p = await authenticate(req);
  const cfg = serverConfig();
  return json(await overview(db(), { leaseSeconds: cfg.LEASE_SECONDS, heartbeatSeconds: cfg.heartbeatSeconds, tenants: p.tenants }));
});

export * from "@/lib/http/method-fallback";
