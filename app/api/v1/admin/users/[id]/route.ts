import { z } from "zod";
import { handler, json, readJson } from "@/lib/http/handler";
import { patchUserBody } from "@/lib/admin/accounts";
import { updateUser } from "@/lib/admin/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const PATCH = handler<{ id: string }>("PATCH /api/v1/admin/users/[id]", async (req, params, p) => {
  return json(
    await updateUser(db(), p, z.string().uuid().parse(params.id), patchUserBody.parse(await readJson(req, 10_000))),
  );
});

export * from "@/lib/http/method-fallback";
