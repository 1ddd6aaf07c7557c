import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { rotateBootstrapToken } from "@/lib/auth/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

// The bootstrap token is an all-tenant admin credential: only an all-tenant admin replaces it.
export const POST = handler(async (req) => {
  const p = await authenticate(req, { role: "admin", fleet: true });
  return json(await rotateBootstrapToken(db(), p));
});

export * from "@/lib/http/method-fallback";
