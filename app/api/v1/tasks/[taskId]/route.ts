import { handler, json } from "@/lib/http/handler";
import { notFound } from "@/lib/domain/errors";
import { hasRole } from "@/lib/auth/principal";
import { taskIdParam } from "@/lib/operations/schemas";
import { getTask } from "@/lib/operations/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ taskId: string }>("GET /api/v1/tasks/[taskId]", async (req, params, p) => {
  const id = taskIdParam.parse(params.taskId);
  const t = await getTask(readDb(), id, p.tenants, hasRole(p, "maintainer"));
  if (!t) throw notFound(`task ${id}`);
  return json(t);
});

export * from "@/lib/http/method-fallback";
