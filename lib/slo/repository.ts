import "server-only";
import type pg from "pg";
import { transaction, type Tx } from "../db/repository";
import { writeAudit } from "../audit/repository";
import { DomainError } from "../domain/errors";
import type { Principal } from "../auth/principal";
import { budgetRemaining, compliance, type SloDefaults } from "./limits";
import { sloProblems, type SloBody, type SloList, type TenantSloSummary, type TenantSloView } from "./schemas";
import {
  freshnessDaily,
  freshnessSummary,
  reachFor,
  ROLLED_REACH,
  SLI_SETTINGS,
  type DailyRow,
  type SummaryRow,
} from "./sql";

// The freshness SLO per tenant for the API and the dashboard (docs/operations.md#freshness-slo):
// figures computed at each read from the tasks' own timestamps (lib/slo/sql.ts), and the tenant's
// own objective, set by an admin in one transaction with its audit row.

type Db = Pick<Tx, "$queryRawUnsafe">;

function summaryOf(r: SummaryRow, d: SloDefaults): TenantSloSummary {
  return {
    tenant: r.tenant_id,
    objective: r.objective,
    targetSeconds: r.target_seconds,
    windowDays: d.windowDays,
    custom: { objective: r.custom_objective, targetSeconds: r.custom_target },
    good: r.good,
    bad: r.bad,
    pending: r.pending,
    compliance: compliance(r.good, r.bad),
    budgetRemaining: budgetRemaining(r.good, r.bad, r.objective),
  };
}

async function summaries(db: Db, tenants: string[] | null, d: SloDefaults): Promise<TenantSloSummary[]> {
  const [{ behind }] = await db.$queryRawUnsafe<{ behind: number | null }[]>(ROLLED_REACH, tenants, d.targetSeconds);
  const s = freshnessSummary(tenants, d, reachFor(d, behind));
  return (await db.$queryRawUnsafe<SummaryRow[]>(s.text, ...s.values)).map((r) => summaryOf(r, d));
}

/** Worst first: least budget left, then the ones with nothing decided yet; ties by tenant id. */
export function worstFirst(a: TenantSloSummary, b: TenantSloSummary): number {
  if (a.budgetRemaining !== b.budgetRemaining) {
    if (a.budgetRemaining === null) return 1;
    if (b.budgetRemaining === null) return -1;
    return a.budgetRemaining - b.budgetRemaining;
  }
  return a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0;
}

/** The SLI's statements in one read-only transaction, under their settings. */
function reading<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return transaction(pool, async (tx) => {
    await tx.$executeRawUnsafe(SLI_SETTINGS);
    return fn(tx);
  });
}

/** Every tenant in scope (null = all), worst first. */
export async function listFreshnessSlo(pool: pg.Pool, tenants: string[] | null, d: SloDefaults): Promise<SloList> {
  const items = await reading(pool, (tx) => summaries(tx, tenants, d));
  return {
    items: items.sort(worstFirst),
    defaults: { objective: d.objective, targetSeconds: d.targetSeconds, windowDays: d.windowDays },
    generatedAt: new Date().toISOString(),
  };
}

/** Each UTC day from the window's first to today, with the days nothing was decided on as zeros. */
function fillDays(rows: DailyRow[], windowDays: number, now = new Date()): TenantSloView["days"] {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: TenantSloView["days"] = [];
  const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - windowDays * 86_400_000;
  for (let t = first; t <= now.getTime(); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const r = byDay.get(day);
    const good = r?.good ?? 0;
    const bad = r?.bad ?? 0;
    out.push({ day, good, bad, compliance: compliance(good, bad) });
  }
  return out;
}

async function view(db: Db, tenant: string, d: SloDefaults): Promise<TenantSloView> {
  const daily = freshnessDaily(tenant, d);
  const [summary] = await summaries(db, [tenant], d);
  const days = await db.$queryRawUnsafe<DailyRow[]>(daily.text, ...daily.values);
  if (!summary) throw new DomainError("NOT_FOUND", `tenant ${tenant} not found (it has never published)`);
  return { ...summary, days: fillDays(days, d.windowDays), generatedAt: new Date().toISOString() };
}

export async function getTenantFreshnessSlo(pool: pg.Pool, tenant: string, d: SloDefaults): Promise<TenantSloView> {
  return reading(pool, (tx) => view(tx, tenant, d));
}

/**
 * Sets the tenant's own objective and/or target (null: back to the default). Every problem is
 * reported at once with its code (400 SLO_INVALID, details.problems) before anything is read or
 * written. Audited as tenant.slo.update with the values before and after.
 */
export async function putTenantFreshnessSlo(
  pool: pg.Pool,
  p: Principal,
  tenant: string,
  body: SloBody,
  d: SloDefaults,
): Promise<TenantSloView> {
  const problems = sloProblems(body);
  if (problems.length)
    throw new DomainError(
      "SLO_INVALID",
      `${problems.length} problem${problems.length === 1 ? "" : "s"} in the objective; the first: ${problems[0].message}`,
      { problems },
    );
  await transaction(pool, async (tx) => {
    // Locked: two admins changing one tenant's objective are audited in the order they applied.
    // NO KEY: the foreign-key checks of the tenant's publishes (KEY SHARE) go on meanwhile.
    const [before] = await tx.$queryRaw<{ objective: number | null; target_seconds: number | null }[]>`
      SELECT freshness_objective AS objective, freshness_target_seconds AS target_seconds FROM tenants WHERE id = ${tenant} FOR NO KEY UPDATE`;
    if (!before) throw new DomainError("NOT_FOUND", `tenant ${tenant} not found (it has never published)`);
    const after = {
      objective: body.objective === undefined ? before.objective : body.objective,
      targetSeconds: body.targetSeconds === undefined ? before.target_seconds : body.targetSeconds,
    };
    await tx.$executeRaw`UPDATE tenants SET freshness_objective = ${after.objective}::float8, freshness_target_seconds = ${after.targetSeconds}::int WHERE id = ${tenant}`;
    await writeAudit(tx, {
      actor: p.subject,
      action: "tenant.slo.update",
      tenant,
      targetType: "tenant",
      targetId: tenant,
      detail: {
        from: { objective: before.objective, targetSeconds: before.target_seconds },
        to: after,
        defaults: { objective: d.objective, targetSeconds: d.targetSeconds },
      },
    });
  });
  return reading(pool, (tx) => view(tx, tenant, d));
}
