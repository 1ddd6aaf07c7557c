import { handler, json, readJson } from "@/lib/http/handler";
import { newTokenBody } from "@/lib/admin/accounts";
import { listTokens, createToken } from "@/lib/admin/repository";
import { db, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/admin/tokens", async (req, params, p) => {
  return json({ items: await listTokens(readDb(), p) });
});

export const POST = handler("POST /api/v1/admin/tokens", async (req, params, p) => {
  return json(await createToken(db(), p, newTokenBody.parse(await readJson(req, 10_000))), 201);
});

export * from "@/lib/http/method-fallback";
