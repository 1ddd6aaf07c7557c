import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { reindex } from "@/lib/documents/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; key: string }>(async (req, params) => {
  const tenant = tenantParam.parse(params.tenant);
  const key = keyParam.parse(params.key);
  const p = await authenticate(req, { role: "maintainer", tenant });
  return json(await reindex(db(), tenant, key, p, serverConfig().MAX_ATTEMPTS), 202);
});

export * from "@/lib/http/method-fallback";
