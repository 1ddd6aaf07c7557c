import { handler, json, readOptionalJson } from "@/lib/http/handler";
import { taskIdParam, optionalReasonBody } from "@/lib/operations/schemas";
import { retryTask } from "@/lib/operations/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ taskId: string }>("POST /api/v1/tasks/[taskId]/retry", async (req, params, p) => {
  const id = taskIdParam.parse(params.taskId);
  const body = optionalReasonBody.parse(await readOptionalJson(req, 10_000));
  return json(await retryTask(db(), id, p, body.reason ?? null, serverConfig().MAX_ATTEMPTS, p.tenants));
});

export * from "@/lib/http/method-fallback";
