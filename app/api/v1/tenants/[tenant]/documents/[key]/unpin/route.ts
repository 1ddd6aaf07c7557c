import { handler, json, refuseBody } from "@/lib/http/handler";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { unpin } from "@/lib/documents/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; key: string }>(
  "POST /api/v1/tenants/[tenant]/documents/[key]/unpin",
  async (req, params, p) => {
    await refuseBody(req);
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    const cfg = serverConfig();
    return json(
      await unpin(db(), tenant, key, p, {
        retentionHours: cfg.RETENTION_HOURS,
        maxAttempts: cfg.MAX_ATTEMPTS,
      }),
    );
  },
);

export * from "@/lib/http/method-fallback";
