import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { unpin } from "@/lib/operations/actions";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; key: string }>(async (req, params) => {
  const tenant = tenantParam.parse(params.tenant);
  const key = keyParam.parse(params.key);
  const p = await authenticate(req, { role: "operator", tenant });
  return json(await unpin(db(), tenant, key, p));
});
