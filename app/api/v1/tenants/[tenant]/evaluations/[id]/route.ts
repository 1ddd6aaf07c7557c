import { handler, json } from "@/lib/http/handler";
import { tenantParam } from "@/lib/documents/schemas";
import { runIdParam } from "@/lib/evaluation/schemas";
import { getEvaluationRun } from "@/lib/evaluation/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string; id: string }>(
  "GET /api/v1/tenants/[tenant]/evaluations/[id]",
  async (req, params, p) =>
    json(await getEvaluationRun(readDb(), p, tenantParam.parse(params.tenant), runIdParam.parse(params.id))),
);

export * from "@/lib/http/method-fallback";
