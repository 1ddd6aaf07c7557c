import { handler, json } from "@/lib/http/handler";
import { listTenants } from "@/lib/tenants/repository";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/tenants", async (req, params, principal) => {
  return json({ items: await listTenants(principal.tenants) });
});

export * from "@/lib/http/method-fallback";
