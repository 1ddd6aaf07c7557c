import { handler, json } from "@/lib/http/handler";
import { revokeBootstrapToken } from "@/lib/auth/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const DELETE = handler("DELETE /api/v1/admin/bootstrap-token", async (_req, _params, principal) =>
  json(await revokeBootstrapToken(db(), principal)),
);

export * from "@/lib/http/method-fallback";
