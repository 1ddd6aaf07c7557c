import { z } from "zod";
import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { deliveriesQuery } from "@/lib/webhooks/schemas";
import { listDeliveries } from "@/lib/webhooks/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ id: string }>(async (req, params) => {
  const p = await authenticate(req, { role: "admin" });
  const q = deliveriesQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await listDeliveries(db(), p, z.string().uuid().parse(params.id), q));
});

export * from "@/lib/http/method-fallback";
