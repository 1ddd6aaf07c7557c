import { handler, json, readOptionalJson } from "@/lib/http/handler";
import { tenantParam } from "@/lib/documents/schemas";
import { switchBody } from "@/lib/evaluation/schemas";
import { migrationIdParam } from "@/lib/spaces/schemas";
import { actOnMigration } from "@/lib/spaces/repository";
import { db, serverConfig, serverSpaces } from "@/lib/server";

export const dynamic = "force-dynamic";

export const POST = handler<{ tenant: string; id: string }>(
  "POST /api/v1/tenants/[tenant]/migrations/[id]/switch",
  async (req, params, p) => {
    // {reason?, force?}: force switches over a regressed evaluation (docs/evaluation.md#the-gate).
    const body = switchBody.parse(await readOptionalJson(req, 10_000));
    return json(
      await actOnMigration(
        db(),
        p,
        tenantParam.parse(params.tenant),
        migrationIdParam.parse(params.id),
        "switch",
        { reason: body.reason ?? null, force: body.force ?? false },
        {
          spaces: serverSpaces(),
          tolerance: serverConfig().EVALUATION_TOLERANCE,
          mode: serverConfig().EVALUATION_GATE_MODE,
        },
      ),
    );
  },
);

export * from "@/lib/http/method-fallback";
