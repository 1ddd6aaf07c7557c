import { handler, json, readJson } from "@/lib/http/handler";
import { tenantParam } from "@/lib/documents/schemas";
import { evaluationSetBody } from "@/lib/evaluation/schemas";
import { getEvaluationSet, putEvaluationSet } from "@/lib/evaluation/repository";
import { db, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string }>("GET /api/v1/tenants/[tenant]/evaluation-set", async (req, params) =>
  json(await getEvaluationSet(readDb(), tenantParam.parse(params.tenant))),
);

export const PUT = handler<{ tenant: string }>(
  "PUT /api/v1/tenants/[tenant]/evaluation-set",
  async (req, params, p) => {
    const tenant = tenantParam.parse(params.tenant);
    const body = evaluationSetBody.parse(await readJson(req, 4_000_000));
    return json(await putEvaluationSet(db(), p, tenant, body));
  },
);

export * from "@/lib/http/method-fallback";
