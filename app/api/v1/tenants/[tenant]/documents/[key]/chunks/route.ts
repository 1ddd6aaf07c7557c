import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { chunkListQuery } from "@/lib/documents/chunk-schemas";
import { listChunks } from "@/lib/documents/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string; key: string }>(async (req, params) => {
  const tenant = tenantParam.parse(params.tenant);
  const key = keyParam.parse(params.key);
  const principal = await authenticate(req, { tenant });
  const q = chunkListQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await listChunks(db(), tenant, key, principal.principals, q));
});

export * from "@/lib/http/method-fallback";
