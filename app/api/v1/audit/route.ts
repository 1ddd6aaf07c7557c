import { handler, json } from "@/lib/http/handler";
import { hasRole } from "@/lib/auth/principal";
import { listAudit } from "@/lib/audit/repository";
import { auditListQuery } from "@/lib/audit/schemas";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/audit", async (req, params, p) => {
  const q = auditListQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  // Webhook URLs are often capability URLs; below admin (who also reads the webhook API) only their origin.
  return json(await listAudit(readDb(), { ...q, tenants: p.tenants, fullDetail: hasRole(p, "admin") }));
});

export * from "@/lib/http/method-fallback";
