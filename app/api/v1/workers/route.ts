import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { listWorkers } from "@/lib/operations/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  await authenticate(req, { fleet: true });
  return json(await listWorkers(db(), serverConfig().heartbeatSeconds));
});

export * from "@/lib/http/method-fallback";
