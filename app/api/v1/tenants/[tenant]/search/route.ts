import { handler, json, readJson } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { searchBody, tenantParam } from "@/lib/documents/schemas";
import { search } from "@/lib/search/search";
import { db, serverEmbedder } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string }>(async (req, params) => {
  const tenant = tenantParam.parse(params.tenant);
  await authenticate(req, { tenant });
  const body = searchBody.parse(await readJson(req, 64_000));
  const hits = await search(db(), serverEmbedder(), {
    tenant,
    query: body.query,
    topK: body.topK ?? 10,
    principals: body.principals ?? [],
    level: body.level,
  });
  return json({ hits });
});
