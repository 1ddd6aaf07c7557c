import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { unpin } from "@/lib/documents/repository";
import { db, embeddingSpace, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; key: string }>(async (req, params) => {
  const tenant = tenantParam.parse(params.tenant);
  const key = keyParam.parse(params.key);
  const p = await authenticate(req, { role: "operator", tenant });
  const cfg = serverConfig();
  return json(await unpin(db(), tenant, key, p, { space: embeddingSpace(), retentionHours: cfg.RETENTION_HOURS, maxAttempts: cfg.MAX_ATTEMPTS }));
});

export * from "@/lib/http/method-fallback";
