import { handler, json } from "@/lib/http/handler";
import { tenantParam } from "@/lib/documents/schemas";
import { migrationIdParam } from "@/lib/spaces/schemas";
import { getMigration } from "@/lib/spaces/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string; id: string }>(
  "GET /api/v1/tenants/[tenant]/migrations/[id]",
  async (req, params) =>
    json(await getMigration(readDb(), tenantParam.parse(params.tenant), migrationIdParam.parse(params.id))),
);

export * from "@/lib/http/method-fallback";
