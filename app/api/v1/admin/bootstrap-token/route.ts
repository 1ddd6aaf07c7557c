import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { revokeBootstrapToken } from "@/lib/auth/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const DELETE = handler(async (req) => {
  const p = await authenticate(req, { role: "admin", fleet: true });
  return json(await revokeBootstrapToken(db(), p));
});

export * from "@/lib/http/method-fallback";
