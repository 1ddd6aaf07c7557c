import { handler, json, readOptionalJson } from "./handler";
import { tenantParam } from "../documents/schemas";
import { switchBody } from "../evaluation/schemas";
import { optionalReasonBody } from "../operations/schemas";
import { migrationIdParam } from "../spaces/schemas";
import { actOnMigration, type MigrationAction } from "../spaces/repository";
import { db, serverConfig, serverSpaces } from "../server";

/**
 * The POST of app/api/v1/tenants/[tenant]/migrations/[id]/<action>, one route file per action:
 * the route table's row of that path, an optional JSON body of at most 10 kB ({reason?}; the
 * switch's {reason?, force?}, where force switches over a regressed evaluation,
 * docs/evaluation.md#the-gate), and the migration as it stands after the action.
 */
export function migrationActionHandler(action: MigrationAction) {
  return handler<{ tenant: string; id: string }>(
    `POST /api/v1/tenants/[tenant]/migrations/[id]/${action}`,
    async (req, params, p) => {
      if (action === "switch") {
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
      }
      const body = optionalReasonBody.parse(await readOptionalJson(req, 10_000));
      return json(
        await actOnMigration(
          db(),
          p,
          tenantParam.parse(params.tenant),
          migrationIdParam.parse(params.id),
          action,
          body.reason ?? null,
        ),
      );
    },
  );
}
