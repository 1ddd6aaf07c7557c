import { handler, json } from "@/lib/http/handler";
import { listWorkers } from "@/lib/operations/repository";
import { serverConfig, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/workers", async () => {
  return json(await listWorkers(readDb(), serverConfig().heartbeatSeconds));
});

export * from "@/lib/http/method-fallback";
