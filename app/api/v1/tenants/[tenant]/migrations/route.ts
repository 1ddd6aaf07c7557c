import { handler, json, readJson } from "@/lib/http/handler";
import { tenantParam } from "@/lib/documents/schemas";
import { newMigrationBody } from "@/lib/spaces/schemas";
import { listMigrations, startMigration } from "@/lib/spaces/repository";
import { db, serverConfig, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler<{ tenant: string }>("GET /api/v1/tenants/[tenant]/migrations", async (req, params) => {
  const tenant = tenantParam.parse(params.tenant);
  return json({ items: await listMigrations(readDb(), tenant) });
});

export const POST = handler<{ tenant: string }>("POST /api/v1/tenants/[tenant]/migrations", async (req, params, p) => {
  const tenant = tenantParam.parse(params.tenant);
  const body = newMigrationBody.parse(await readJson(req, 10_000));
  return json(await startMigration(db(), p, tenant, body, serverConfig().MAX_ATTEMPTS), 202);
});

export * from "@/lib/http/method-fallback";
