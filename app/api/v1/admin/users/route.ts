import { handler, json, readJson } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { newUserBody } from "@/lib/admin/accounts";
import { listUsers, createUser } from "@/lib/admin/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  const p = await authenticate(req, { role: "admin" });
  return json({ items: await listUsers(db(), p) });
});

export const POST = handler(async (req) => {
  const p = await authenticate(req, { role: "admin" });
  return json(await createUser(db(), p, newUserBody.parse(await readJson(req, 10_000))), 201);
});

export * from "@/lib/http/method-fallback";
