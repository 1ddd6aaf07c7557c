import { handler, json } from "@/lib/http/handler";
import { rotateBootstrapToken } from "@/lib/auth/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

// The bootstrap token is an all-tenant admin credential: only an all-tenant admin replaces it (the route table's row).
export const POST = handler("POST /api/v1/admin/bootstrap-token/rotate", async (_req, _params, principal) =>
  json(await rotateBootstrapToken(db(), principal)),
);

export * from "@/lib/http/method-fallback";
