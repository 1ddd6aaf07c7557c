import { handler, json } from "@/lib/http/handler";
import { notFound } from "@/lib/domain/errors";
import { hasRole } from "@/lib/auth/principal";
import { tenantParam, keyParam } from "@/lib/documents/schemas";
import { getDocument, requestDelete } from "@/lib/documents/repository";
import { db, serverConfig, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string; key: string }>(
  "GET /api/v1/tenants/[tenant]/documents/[key]",
  async (req, params, principal) => {
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    const doc = await getDocument(readDb(), tenant, key, {
      principals: principal.principals,
      publisher: hasRole(principal, "maintainer"),
    });
    if (!doc) throw notFound(`document ${tenant}/${key}`);
    return json(doc);
  },
);

export const DELETE = handler<{ tenant: string; key: string }>(
  "DELETE /api/v1/tenants/[tenant]/documents/[key]",
  async (req, params, principal) => {
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    const r = await requestDelete(db(), tenant, key, principal.subject, serverConfig().MAX_ATTEMPTS);
    if (!r) throw notFound(`document ${tenant}/${key}`);
    return json(r, 202);
  },
);

export * from "@/lib/http/method-fallback";
