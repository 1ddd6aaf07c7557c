import { handler, json, readJson } from "@/lib/http/handler";
import { pauseBody } from "@/lib/operations/schemas";
import { listPauses, pauseQueue } from "@/lib/operations/repository";
import { db, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/pauses", async (req, params, p) => {
  return json(await listPauses(readDb(), p.tenants));
});

export const POST = handler("POST /api/v1/pauses", async (req, params, p) => {
  const body = pauseBody.parse(await readJson(req, 10_000));
  return json(await pauseQueue(db(), { tenant: body.tenant, taskType: body.taskType }, p, body.reason, p.tenants), 201);
});

export * from "@/lib/http/method-fallback";
