import { handler, json, readJson } from "@/lib/http/handler";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { rollbackBody } from "@/lib/operations/schemas";
import { rollback } from "@/lib/documents/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; key: string }>(
  "POST /api/v1/tenants/[tenant]/documents/[key]/rollback",
  async (req, params, p) => {
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    const body = rollbackBody.parse(await readJson(req, 10_000));
    return json(await rollback(db(), tenant, key, body.toVersion, body.reason, p, serverConfig().RETENTION_HOURS));
  },
);

export * from "@/lib/http/method-fallback";
