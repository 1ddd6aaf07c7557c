import { handler, json, readJson } from "@/lib/http/handler";
import { newEndpointBody } from "@/lib/webhooks/schemas";
import { listEndpoints, createEndpoint } from "@/lib/webhooks/repository";
import { db, serverConfig, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/admin/webhooks", async (req, params, p) => {
  return json({ items: await listEndpoints(readDb(), p) });
});

export const POST = handler("POST /api/v1/admin/webhooks", async (req, params, p) => {
  const body = newEndpointBody.parse(await readJson(req, 10_000));
  return json(await createEndpoint(db(), p, body, serverConfig().WEBHOOK_ALLOW_PRIVATE_NETWORKS), 201);
});

export * from "@/lib/http/method-fallback";
