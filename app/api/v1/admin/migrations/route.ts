import { handler, json, readJson } from "@/lib/http/handler";
import { fleetMigrationBody } from "@/lib/spaces/schemas";
import { startFleetMigration } from "@/lib/spaces/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler("POST /api/v1/admin/migrations", async (req, params, p) => {
  const body = fleetMigrationBody.parse(await readJson(req, 10_000));
  return json(await startFleetMigration(db(), p, body, serverConfig().MAX_ATTEMPTS), 202);
});

export * from "@/lib/http/method-fallback";
