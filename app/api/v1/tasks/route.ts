import { handler, json } from "@/lib/http/handler";
import { taskListQuery } from "@/lib/operations/schemas";
import { listTasks } from "@/lib/operations/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/tasks", async (req, params, p) => {
  const q = taskListQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await listTasks(readDb(), { ...q, tenants: p.tenants }));
});

export * from "@/lib/http/method-fallback";
