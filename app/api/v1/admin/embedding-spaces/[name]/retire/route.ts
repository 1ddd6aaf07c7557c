import { handler, json, readOptionalJson } from "@/lib/http/handler";
import { optionalReasonBody } from "@/lib/operations/schemas";
import { spaceName } from "@/lib/spaces/schemas";
import { retireSpace } from "@/lib/spaces/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ name: string }>(
  "POST /api/v1/admin/embedding-spaces/[name]/retire",
  async (req, params, p) => {
    const name = spaceName.parse(params.name);
    const body = optionalReasonBody.parse(await readOptionalJson(req, 10_000));
    return json(await retireSpace(db(), p, name, body.reason ?? null));
  },
);

export * from "@/lib/http/method-fallback";
