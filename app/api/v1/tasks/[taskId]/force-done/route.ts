import { handler, json, readJson } from "@/lib/http/handler";
import { taskIdParam, reasonBody } from "@/lib/operations/schemas";
import { forceDone } from "@/lib/operations/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ taskId: string }>("POST /api/v1/tasks/[taskId]/force-done", async (req, params, p) => {
  const id = taskIdParam.parse(params.taskId);
  const body = reasonBody.parse(await readJson(req, 10_000));
  return json(await forceDone(db(), id, p, body.reason, p.tenants));
});

export * from "@/lib/http/method-fallback";
