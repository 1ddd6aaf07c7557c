import { handler, json, readJson } from "@/lib/http/handler";
import { bulkRetryBody } from "@/lib/operations/schemas";
import { bulkRetry } from "@/lib/operations/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler("POST /api/v1/tasks/retry", async (req, params, p) => {
  const body = bulkRetryBody.parse(await readJson(req, 10_000));
  return json(
    await bulkRetry(
      db(),
      { errorCode: body.errorCode, tenant: body.tenant, type: body.type },
      p,
      body.reason ?? null,
      serverConfig().MAX_ATTEMPTS,
      p.tenants,
    ),
  );
});

export * from "@/lib/http/method-fallback";
