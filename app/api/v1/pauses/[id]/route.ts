import { handler, json, readOptionalJson } from "@/lib/http/handler";
import { optionalReasonBody, pauseIdParam } from "@/lib/operations/schemas";
import { resumeQueue } from "@/lib/operations/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

/** Resume: the pause ends and its held tasks are claimed at once. */
export const DELETE = handler<{ id: string }>("DELETE /api/v1/pauses/[id]", async (req, params, p) => {
  const id = pauseIdParam.parse(params.id);
  const body = optionalReasonBody.parse(await readOptionalJson(req, 10_000));
  return json(await resumeQueue(db(), id, p, body.reason ?? null, p.tenants));
});

export * from "@/lib/http/method-fallback";
