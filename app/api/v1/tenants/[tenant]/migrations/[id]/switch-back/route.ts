import { handler, json, readOptionalJson } from "@/lib/http/handler";
import { tenantParam } from "@/lib/documents/schemas";
import { optionalReasonBody } from "@/lib/operations/schemas";
import { migrationIdParam } from "@/lib/spaces/schemas";
import { actOnMigration } from "@/lib/spaces/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; id: string }>(
  "POST /api/v1/tenants/[tenant]/migrations/[id]/switch-back",
  async (req, params, p) => {
    const body = optionalReasonBody.parse(await readOptionalJson(req, 10_000));
    return json(
      await actOnMigration(
        db(),
        p,
        tenantParam.parse(params.tenant),
        migrationIdParam.parse(params.id),
        "switch-back",
        body.reason ?? null,
      ),
    );
  },
);

export * from "@/lib/http/method-fallback";
