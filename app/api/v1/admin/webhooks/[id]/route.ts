import { z } from "zod";
import { handler, json, readJson } from "@/lib/http/handler";
import { patchEndpointBody } from "@/lib/webhooks/schemas";
import { updateEndpoint, deleteEndpoint } from "@/lib/webhooks/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const PATCH = handler<{ id: string }>("PATCH /api/v1/admin/webhooks/[id]", async (req, params, p) => {
  const id = z.string().uuid().parse(params.id);
  const body = patchEndpointBody.parse(await readJson(req, 10_000));
  return json(await updateEndpoint(db(), p, id, body, serverConfig().WEBHOOK_ALLOW_PRIVATE_NETWORKS));
});

export const DELETE = handler<{ id: string }>("DELETE /api/v1/admin/webhooks/[id]", async (req, params, p) => {
  return json(await deleteEndpoint(db(), p, z.string().uuid().parse(params.id)));
});

export * from "@/lib/http/method-fallback";
