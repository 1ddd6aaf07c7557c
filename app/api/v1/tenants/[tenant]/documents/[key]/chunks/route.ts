import { handler, json } from "@/lib/http/handler";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { chunkListQuery } from "@/lib/documents/chunk-schemas";
import { listChunks } from "@/lib/documents/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string; key: string }>(
  "GET /api/v1/tenants/[tenant]/documents/[key]/chunks",
  async (req, params, principal) => {
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    const q = chunkListQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
    return json(await listChunks(readDb(), tenant, key, principal.principals, q));
  },
);

export * from "@/lib/http/method-fallback";
