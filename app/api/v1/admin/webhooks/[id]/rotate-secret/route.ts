import { z } from "zod";
import { handler, json } from "@/lib/http/handler";
import { rotateSecret } from "@/lib/webhooks/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ id: string }>(
  "POST /api/v1/admin/webhooks/[id]/rotate-secret",
  async (req, params, p) => {
    return json(await rotateSecret(db(), p, z.string().uuid().parse(params.id)));
  },
);

export * from "@/lib/http/method-fallback";
