import { handler, json, readJson } from "@/lib/http/handler";
import { auditSearchAs, searchPrincipals } from "@/lib/auth/search-principals";
import { searchBody, tenantParam } from "@/lib/documents/schemas";
import { searchAnswer } from "@/lib/search/search";
import { DEFAULT_SEARCH_MODE } from "@/lib/search/modes";
import { db, readDb, serverSpaces } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string }>("POST /api/v1/tenants/[tenant]/search", async (req, params, p) => {
  const tenant = tenantParam.parse(params.tenant);
  const body = searchBody.parse(await readJson(req, 64_000));
  const as = searchPrincipals(p, body.principals);
  const topK = body.topK ?? 10;
  // Recorded before the answer is read: a search that fails half way still showed intent. On the
  // primary: the answer itself may come from the read replica, which takes no writes.
  if (as.audited) await auditSearchAs(db(), p, tenant, as, topK);
  const { hits, space } = await searchAnswer(readDb(), serverSpaces(), {
    tenant,
    query: body.query,
    topK,
    principals: as.principals,
    level: body.level,
    mode: body.mode ?? DEFAULT_SEARCH_MODE,
  });
  return json({ hits, searchedAs: as.principals, space: space.name });
});

export * from "@/lib/http/method-fallback";
