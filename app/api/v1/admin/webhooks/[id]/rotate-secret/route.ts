import { z } from "zod";
import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { rotateSecret } from "@/lib/webhooks/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ id: string }>(async (req, params) => {
  const p = await authenticate(req, { role: "admin" });
  return json(await rotateSecret(db(), p, z.string().uuid().parse(params.id)));
});

export * from "@/lib/http/method-fallback";
