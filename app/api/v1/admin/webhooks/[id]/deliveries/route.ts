import { z } from "zod";
import { handler, json } from "@/lib/http/handler";
import { deliveriesQuery } from "@/lib/webhooks/schemas";
import { listDeliveries } from "@/lib/webhooks/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ id: string }>("GET /api/v1/admin/webhooks/[id]/deliveries", async (req, params, p) => {
  const q = deliveriesQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await listDeliveries(readDb(), p, z.string().uuid().parse(params.id), q));
});

export * from "@/lib/http/method-fallback";
