import { handler, json, readJson } from "@/lib/http/handler";
import { taskIdParam, reasonBody } from "@/lib/operations/schemas";
import { cancelTask } from "@/lib/operations/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ taskId: string }>("POST /api/v1/tasks/[taskId]/cancel", async (req, params, p) => {
  const id = taskIdParam.parse(params.taskId);
  const body = reasonBody.parse(await readJson(req, 10_000));
  return json(await cancelTask(db(), id, p, body.reason, p.tenants));
});

export * from "@/lib/http/method-fallback";
