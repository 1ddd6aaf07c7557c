import { handler, json } from "@/lib/http/handler";
import { listAudit } from "@/lib/audit/repository";
import { auditListQuery } from "@/lib/audit/schemas";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/audit", async (req, params, p) => {
  const q = auditListQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await listAudit(db(), { ...q, tenants: p.tenants }));
});

export * from "@/lib/http/method-fallback";
