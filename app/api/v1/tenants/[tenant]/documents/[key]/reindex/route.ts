import { handler, json, refuseBody } from "@/lib/http/handler";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { reindex } from "@/lib/documents/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; key: string }>(
  "POST /api/v1/tenants/[tenant]/documents/[key]/reindex",
  async (req, params, p) => {
    await refuseBody(req);
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    return json(await reindex(db(), tenant, key, p, serverConfig().MAX_ATTEMPTS), 202);
  },
);

export * from "@/lib/http/method-fallback";
