import { handler, json, readJson } from "@/lib/http/handler";
import { newSpaceBody } from "@/lib/spaces/schemas";
import { createSpace, listSpaces } from "@/lib/spaces/repository";
import { db, serverConfig } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/admin/embedding-spaces", async () => json({ items: await listSpaces(db()) }));

export const POST = handler("POST /api/v1/admin/embedding-spaces", async (req, params, p) => {
  const body = newSpaceBody.parse(await readJson(req, 10_000));
  return json(await createSpace(db(), p, body, serverConfig().EMBEDDING_TIMEOUT_MS), 201);
});

export * from "@/lib/http/method-fallback";
