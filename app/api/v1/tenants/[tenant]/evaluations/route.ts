import { handler, json, readOptionalJson } from "@/lib/http/handler";
import { tenantParam } from "@/lib/documents/schemas";
import { newRunBody } from "@/lib/evaluation/schemas";
import { listEvaluationRuns, startEvaluationRun } from "@/lib/evaluation/repository";
import { db, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string }>("GET /api/v1/tenants/[tenant]/evaluations", async (req, params) =>
  json({ items: await listEvaluationRuns(readDb(), tenantParam.parse(params.tenant)) }),
);

export const POST = handler<{ tenant: string }>("POST /api/v1/tenants/[tenant]/evaluations", async (req, params, p) => {
  const tenant = tenantParam.parse(params.tenant);
  const body = newRunBody.parse(await readOptionalJson(req, 10_000));
  return json(await startEvaluationRun(db(), p, tenant, body), 202);
});

export * from "@/lib/http/method-fallback";
