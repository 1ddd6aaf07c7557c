import { z } from "zod";
import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { revokeToken } from "@/lib/admin/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const DELETE = handler<{ id: string }>(async (req, params) => {
  const p = await authenticate(req, { role: "admin" });
  return json(await revokeToken(db(), p, z.string().uuid().parse(params.id)));
});

export * from "@/lib/http/method-fallback";
