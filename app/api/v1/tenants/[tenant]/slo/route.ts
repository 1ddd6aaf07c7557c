import { handler, json, readJson } from "@/lib/http/handler";
import { sloDefaults } from "@/lib/config";
import { tenantParam } from "@/lib/documents/schemas";
import { sloBody } from "@/lib/slo/schemas";
import { getTenantFreshnessSlo, putTenantFreshnessSlo } from "@/lib/slo/repository";
import { db, serverConfig, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string }>("GET /api/v1/tenants/[tenant]/slo", async (req, params) =>
  json(await getTenantFreshnessSlo(readDb(), tenantParam.parse(params.tenant), sloDefaults(serverConfig()))),
);

export const PUT = handler<{ tenant: string }>("PUT /api/v1/tenants/[tenant]/slo", async (req, params, p) => {
  const tenant = tenantParam.parse(params.tenant);
  const body = sloBody.parse(await readJson(req, 4_096));
  return json(await putTenantFreshnessSlo(db(), p, tenant, body, sloDefaults(serverConfig())));
});

export * from "@/lib/http/method-fallback";
