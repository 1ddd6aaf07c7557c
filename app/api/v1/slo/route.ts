import { handler, json } from "@/lib/http/handler";
import { sloDefaults } from "@/lib/config";
import { listFreshnessSlo } from "@/lib/slo/repository";
import { serverConfig, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/slo", async (req, params, principal) =>
  json(await listFreshnessSlo(readDb(), principal.tenants, sloDefaults(serverConfig()))),
);

export * from "@/lib/http/method-fallback";
