import { handler, json, readJson } from "@/lib/http/handler";
import { spaceName, spacePatchBody } from "@/lib/spaces/schemas";
import { updateSpace } from "@/lib/spaces/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const PATCH = handler<{ name: string }>(
  "PATCH /api/v1/admin/embedding-spaces/[name]",
  async (req, params, p) => {
    const name = spaceName.parse(params.name);
    const body = spacePatchBody.parse(await readJson(req, 10_000));
    return json(await updateSpace(db(), p, name, body));
  },
);

export * from "@/lib/http/method-fallback";
