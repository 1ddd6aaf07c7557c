import { handler, json, readJson } from "@/lib/http/handler";
import { newUserBody } from "@/lib/admin/accounts";
import { listUsers, createUser } from "@/lib/admin/repository";
import { db, readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/admin/users", async (req, params, p) => {
  return json({ items: await listUsers(readDb(), p) });
});

export const POST = handler("POST /api/v1/admin/users", async (req, params, p) => {
  return json(await createUser(db(), p, newUserBody.parse(await readJson(req, 10_000))), 201);
});

export * from "@/lib/http/method-fallback";
