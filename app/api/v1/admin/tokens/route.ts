import { handler, json, readJson } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { listTokens, createToken, newTokenBody } from "@/lib/admin/accounts";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  await authenticate(req, { role: "admin" });
  return json({ items: await listTokens(db()) });
});

export const POST = handler(async (req) => {
  const p = await authenticate(req, { role: "admin" });
  return json(await createToken(db(), p.subject, newTokenBody.parse(await readJson(req, 10_000))), 201);
});
