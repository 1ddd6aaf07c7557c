import { handler, json, readJson } from "@/lib/http/handler";
import { newSpaceBody } from "@/lib/spaces/schemas";
import { createSpace, listSpaces } from "@/lib/spaces/repository";
import { db, serverConfig, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

// Operators read spaces to choose a migration's target; where a provider lives (a base URL's path
// and query may name internal routes) is an admin's to see, so others get its origin only.
export const GET = handler("GET /api/v1/admin/embedding-spaces", async (req, params, p) => {
  const items = await listSpaces(readDb());
  if (p.role === "admin") return json({ items });
  return json({ items: items.map((s) => ({ ...s, baseUrl: s.baseUrl === null ? null : new URL(s.baseUrl).origin })) });
});

export const POST = handler("POST /api/v1/admin/embedding-spaces", async (req, params, p) => {
  const body = newSpaceBody.parse(await readJson(req, 10_000));
  return json(await createSpace(db(), p, body, serverConfig().EMBEDDING_TIMEOUT_MS), 201);
});

export * from "@/lib/http/method-fallback";
