import { handler, json, readJson } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { pauseBody } from "@/lib/operations/schemas";
import { listPauses, pauseQueue } from "@/lib/operations/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  const p = await authenticate(req, { role: "viewer" });
  return json(await listPauses(db(), p.tenants));
});

export const POST = handler(async (req) => {
  const p = await authenticate(req, { role: "operator" });
  const body = pauseBody.parse(await readJson(req, 10_000));
  return json(await pauseQueue(db(), { tenant: body.tenant, taskType: body.taskType }, p, body.reason, p.tenants), 201);
});

export * from "@/lib/http/method-fallback";
