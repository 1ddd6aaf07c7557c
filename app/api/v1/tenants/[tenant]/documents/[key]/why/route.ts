import { handler, json, readJson } from "@/lib/http/handler";
import { auditSearchAs, searchPrincipals } from "@/lib/auth/search-principals";
import type { Principal } from "@/lib/auth/principal";
import { keyParam, tenantParam } from "@/lib/documents/schemas";
import { whyBody, whyQuery, type WhyBody } from "@/lib/evaluation/schemas";
import { whyNotInActiveSpace } from "@/lib/evaluation/evaluate";
import { DEFAULT_SEARCH_MODE } from "@/lib/search/modes";
import { db, readDb, serverSpaces } from "@/lib/server";

export const dynamic = "force-dynamic";

type Params = { tenant: string; key: string };

/** The diagnosis of one document for one query, searched as search would (own principals, or named ones, audited). */
async function why(params: Params, p: Principal, body: WhyBody): Promise<Response> {
  const tenant = tenantParam.parse(params.tenant);
  const key = keyParam.parse(params.key);
  const as = searchPrincipals(p, body.principals);
  const topK = body.topK ?? 10;
  if (as.audited) await auditSearchAs(db(), p, tenant, as, topK);
  return json(
    await whyNotInActiveSpace(readDb(), serverSpaces(), {
      tenant,
      key,
      query: body.query,
      principals: as.principals,
      mode: body.mode ?? DEFAULT_SEARCH_MODE,
      topK,
    }),
  );
}

export const GET = handler<Params>("GET /api/v1/tenants/[tenant]/documents/[key]/why", async (req, params, p) => {
  const url = new URL(req.url);
  const qs = whyQuery.parse(Object.fromEntries(url.searchParams));
  const principals = qs.principals?.split(",").map((s) => s.trim());
  return why(params, p, whyBody.parse({ ...qs, principals: principals?.length ? principals : undefined }));
});

export const POST = handler<Params>("POST /api/v1/tenants/[tenant]/documents/[key]/why", async (req, params, p) =>
  why(params, p, whyBody.parse(await readJson(req, 64_000))),
);

export * from "@/lib/http/method-fallback";
