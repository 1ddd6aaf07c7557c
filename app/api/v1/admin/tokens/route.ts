import { handler, json, readJson } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { newTokenBody } from "@/lib/admin/accounts";
import { listTokens, createToken } from "@/lib/admin/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  const p = await authenticate(req, { role: "admin" });
  return json({ items: await listTokens(db(), p) });
});

export const POST = handler(async (req) => {
  const p = await authenticate(req, { role: "admin" });
  return json(await createToken(db(), p, newTokenBody.parse(await readJson(req, 10_000))), 201);
});

export * from "@/lib/http/method-fallback";
