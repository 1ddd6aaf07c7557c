import { z } from "zod";
import { handler, json, readJson } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { patchEndpointBody } from "@/lib/webhooks/schemas";
import { updateEndpoint, deleteEndpoint } from "@/lib/webhooks/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const PATCH = handler<{ id: string }>(async (req, params) => {
  const p = await authenticate(req, { role: "admin" });
  const id = z.string().uuid().parse(params.id);
  const body = patchEndpointBody.parse(await readJson(req, 10_000));
  return json(await updateEndpoint(db(), p, id, body, serverConfig().WEBHOOK_ALLOW_PRIVATE_NETWORKS));
});

export const DELETE = handler<{ id: string }>(async (req, params) => {
  const p = await authenticate(req, { role: "admin" });
  return json(await deleteEndpoint(db(), p, z.string().uuid().parse(params.id)));
});

export * from "@/lib/http/method-fallback";
