import { z } from "zod";
import { handler, json, readOptionalJson } from "@/lib/http/handler";
import { redeliverBody } from "@/lib/webhooks/schemas";
import { redeliver } from "@/lib/webhooks/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ id: string; deliveryId: string }>(
  "POST /api/v1/admin/webhooks/[id]/deliveries/[deliveryId]/redeliver",
  async (req, params, p) => {
    const id = z.string().uuid().parse(params.id);
    const deliveryId = z
      .string()
      .regex(/^\d{1,19}$/, "deliveryId must be a delivery number")
      .parse(params.deliveryId);
    const body = redeliverBody.parse((await readOptionalJson(req, 10_000)) ?? {});
    return json(await redeliver(db(), p, id, deliveryId, body.reason ?? null));
  },
);

export * from "@/lib/http/method-fallback";
