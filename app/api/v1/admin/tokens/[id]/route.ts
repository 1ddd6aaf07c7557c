import { z } from "zod";
import { handler, json } from "@/lib/http/handler";
import { revokeToken } from "@/lib/admin/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const DELETE = handler<{ id: string }>("DELETE /api/v1/admin/tokens/[id]", async (req, params, p) => {
  return json(await revokeToken(db(), p, z.string().uuid().parse(params.id)));
});

export * from "@/lib/http/method-fallback";
