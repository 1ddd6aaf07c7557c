import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { listTenants } from "@/lib/tenants/repository";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  const principal = await authenticate(req);
  return json({ items: await listTenants(principal.tenants) });
});

export * from "@/lib/http/method-fallback";
