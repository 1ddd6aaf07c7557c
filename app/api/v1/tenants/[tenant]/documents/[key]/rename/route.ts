import { handler, json, readJson } from "@/lib/http/handler";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { renameBody } from "@/lib/operations/schemas";
import { rename } from "@/lib/documents/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; key: string }>(
  "POST /api/v1/tenants/[tenant]/documents/[key]/rename",
  async (req, params, p) => {
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    const body = renameBody.parse(await readJson(req, 10_000));
    return json(await rename(db(), tenant, key, body.newKey, p));
  },
);

export * from "@/lib/http/method-fallback";
