import { handler, json, readJson } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { bulkRetryBody } from "@/lib/operations/schemas";
import { bulkRetry } from "@/lib/operations/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler(async (req) => {
  const p = await authenticate(req, { role: "operator" });
  const body = bulkRetryBody.parse(await readJson(req, 10_000));
  return json(await bulkRetry(db(), { errorCode: body.errorCode, tenant: body.tenant, type: body.type }, p, body.reason ?? null, serverConfig().MAX_ATTEMPTS, p.tenants));
});

export * from "@/lib/http/method-fallback";
