// Index-space migrations (docs/decisions/039-index-spaces.md): start, switch, switch-back, abort,
// finish and progress, written once over `Db` so the dashboard's repository (a Prisma transaction)
// and the worker's maintenance (pg) run the same procedure. Every procedure runs inside one
// transaction of the caller's and takes the tenant's space lock exclusive first.
import type { Statement } from "../db/pool";
import { DomainError } from "../domain/errors";
import { notifyTasks } from "../queue/sql";
import { queueMigrationTasks, supersedeMigrationTasks } from "../queue/actions-sql";
import { lockTenantSpaceExclusive } from "./sql";
import * as m from "./actions-sql";
import type { MigrationState, Space } from "./types";
import type { GateVerdict } from "../evaluation/schemas";
import { enqueueSwitchRun } from "../evaluation/sql";
import { DEFAULT_SEARCH_MODE } from "../search/modes";

export type Db = {
  rows<T>(s: Statement): Promise<T[]>;
  /** A statement whose result is not read (advisory locks and pg_notify return void). */
  exec(s: Statement): Promise<void>;
};

export type MigrationRow = {
  id: string;
  tenant_id: string;
  from_space_id: number;
  to_space_id: number;
  state: MigrationState;
  auto_switch: boolean;
  documents_total: number;
  max_attempts: number;
  texts_embedded: string;
  tokens_embedded: string;
  created_by: string;
  reason: string | null;
  created_at: Date;
  ready_at: Date | null;
  switched_at: Date | null;
  switched_by: string | null;
  ended_at: Date | null;
  ended_by: string | null;
  gate: unknown;
};

/** The space that is not serving: the candidate until the switch, the previous one after it. */
export const shadowOf = (r: Pick<MigrationRow, "state" | "from_space_id" | "to_space_id">) =>
  r.state === "SWITCHED" || r.state === "FINISHED" ? r.from_space_id : r.to_space_id;

export type Coverage = { total: number; built: number; unverified: number };

export async function coverageOf(db: Db, tenantId: string, shadowSpaceId: number): Promise<Coverage> {
  const [c] = await db.rows<{ total: number; built: number }>(m.coverage(tenantId, shadowSpaceId));
  const [u] = await db.rows<{ n: number }>(unverified(tenantId, shadowSpaceId));
  return { total: c.total, built: c.built, unverified: u.n };
}

/** Shadow pointers whose index version is not complete and ACTIVE: nothing a switch may serve. */
function unverified(tenantId: string, spaceId: number): Statement {
  return {
    text: `SELECT count(*)::int AS n FROM space_pointers s JOIN index_versions iv ON iv.id = s.index_version_id
 WHERE s.tenant_id = $1 AND s.space_id = $2
   AND (iv.status <> 'ACTIVE' OR iv.chunk_count <> iv.expected_chunk_count OR iv.space_id <> $2)`,
    values: [tenantId, spaceId],
  };
}

/**
 * What a switch's quality gate judged (lib/evaluation/runner.ts gateForSwitch): null when it could
 * not judge yet (the candidate was not ready when it looked), with the caller's override.
 */
export type SwitchGate = { verdict: GateVerdict | null; force?: boolean; reason?: string | null };

/**
 * Whether the shadow space may serve the tenant: the one question a switch asks
 * (docs/decisions/039-index-spaces.md §6). Coverage and integrity, then the evaluation gate when one
 * is given (docs/evaluation.md#the-gate): refused with EVALUATION_REGRESSED when the candidate's
 * nDCG@10 on the tenant's set is lower than the active space's by more than the tolerance, unless
 * forced. Refuses with MIGRATION_NOT_READY and the counts.
 */
export async function mayServe(
  db: Db,
  tenantId: string,
  shadowSpaceId: number,
  what: string,
  gate?: SwitchGate,
): Promise<Coverage> {
  const c = await coverageOf(db, tenantId, shadowSpaceId);
  if (c.built < c.total || c.unverified > 0)
    throw new DomainError(
      "MIGRATION_NOT_READY",
      `${what} serves ${c.built} of ${c.total} documents at the version search serves${c.unverified ? `, ${c.unverified} not verified` : ""}; the rest are still building`,
      { ...c },
    );
  if (gate && gate.verdict === null)
    throw new DomainError(
      "MIGRATION_NOT_READY",
      `${what} became ready while the switch was being judged; switch again to evaluate it`,
      { ...c },
    );
  const v = gate?.verdict;
  if (v?.evaluated && v.regressed && !gate?.force)
    throw new DomainError(
      "EVALUATION_REGRESSED",
      `${what} answers the tenant's evaluation set worse: nDCG@10 ${v.candidate.ndcgAt10.toFixed(3)} against ${v.active.ndcgAt10.toFixed(3)} (more than ${v.tolerance} lower, ${v.losses.length} queries lost); switch with force and a reason to override`,
      {
        activeNdcgAt10: v.active.ndcgAt10,
        candidateNdcgAt10: v.candidate.ndcgAt10,
        tolerance: v.tolerance,
        activeRunId: v.active.runId,
        candidateRunId: v.candidate.runId,
        losses: v.losses,
      },
    );
  return c;
}

/** The migration's `gate` record of what the switch was judged on. */
function gateRecord(gate: SwitchGate | undefined): Record<string, unknown> {
  const v = gate?.verdict;
  if (!v) return { evaluated: false, reason: "NOT_GATED" };
  if (!v.evaluated) return { ...v };
  return {
    ...v,
    ...(v.regressed && gate?.force ? { forced: true, forceReason: gate.reason ?? null } : { forced: false }),
  };
}

async function lockOrThrow(db: Db, tenantId: string, id: string): Promise<MigrationRow> {
  const [row] = await db.rows<MigrationRow>(m.lockMigration(tenantId, id));
  if (!row) throw new DomainError("NOT_FOUND", `migration ${id} of tenant ${tenantId} not found`);
  return row;
}

function expectState(row: MigrationRow, allowed: MigrationState[], action: string): void {
  if (!allowed.includes(row.state))
    throw new DomainError(
      "INVALID_STATE",
      `migration ${row.id} is ${row.state}; ${action} needs it ${allowed.join(" or ")}`,
    );
}

export async function startMigrationIn(
  db: Db,
  input: { tenant: string; to: Space; autoSwitch: boolean; actor: string; reason: string | null; maxAttempts: number },
): Promise<MigrationRow> {
  await db.exec(lockTenantSpaceExclusive(input.tenant));
  const [tenant] = await db.rows<{ active_space_id: number }>(m.lockTenant(input.tenant));
  if (!tenant) throw new DomainError("NOT_FOUND", `tenant ${input.tenant} not found (it has never published)`);
  if (input.to.retiredAt) throw new DomainError("SPACE_RETIRED", `index space ${input.to.name} is retired`);
  if (tenant.active_space_id === input.to.id)
    throw new DomainError("INVALID_STATE", `tenant ${input.tenant} already searches index space ${input.to.name}`);
  const [open] = await db.rows<MigrationRow>(m.lockOpenMigration(input.tenant));
  if (open)
    throw new DomainError(
      "MIGRATION_OPEN",
      `tenant ${input.tenant} has migration ${open.id} open (${open.state}); switch back, abort or finish it first`,
      { migrationId: open.id, state: open.state },
    );
  const [{ id }] = await db.rows<{ id: string }>(
    m.insertMigration(
      input.tenant,
      tenant.active_space_id,
      input.to.id,
      input.autoSwitch,
      input.actor,
      input.reason,
      input.maxAttempts,
    ),
  );
  await db.rows(queueMigrationTasks(input.tenant, input.to.id, id, input.maxAttempts, input.actor));
  await db.exec(notifyTasks());
  const [row] = await db.rows<MigrationRow>(m.lockMigration(input.tenant, id));
  return row;
}

/** Search reads the candidate from the next statement on (coverage checked under every pointer lock). */
export async function switchIn(
  db: Db,
  input: {
    tenant: string;
    id: string;
    actor: string;
    indexReady: (spaceId: number) => Promise<boolean>;
    /** The quality gate's verdict; absent, the switch records that it was not gated. */
    gate?: SwitchGate;
  },
): Promise<MigrationRow> {
  await db.exec(lockTenantSpaceExclusive(input.tenant));
  const row = await lockOrThrow(db, input.tenant, input.id);
  expectState(row, ["READY", "BUILDING"], "a switch");
  if (!(await input.indexReady(row.to_space_id)))
    throw new DomainError(
      "MIGRATION_NOT_READY",
      `migration ${row.id}: the candidate's HNSW index is not built yet (it is built once, when every document is in)`,
    );
  await db.rows(m.lockActivePointers(input.tenant));
  await db.rows(m.lockShadowSpacePointers(input.tenant, row.to_space_id));
  await db.exec(m.dropDeletedPointers(input.tenant));
  const gate = await mayServe(db, input.tenant, row.to_space_id, "the candidate space", input.gate);
  await db.rows(m.swapPointers(input.tenant, row.from_space_id));
  await db.rows(m.takeShadowPointers(input.tenant, row.to_space_id));
  await db.rows(m.endSwap());
  await db.exec(m.retireUnservedVersions(input.tenant));
  // The previous space now follows; whatever it lacks (a pointer it never held) is queued for it.
  await db.rows(queueMigrationTasks(input.tenant, row.from_space_id, row.id, row.max_attempts, input.actor));
  await db.exec(notifyTasks());
  await db.exec(
    m.setMigrationState(row.id, "SWITCHED", {
      switchedBy: input.actor,
      ready: row.state === "BUILDING",
      gate: { ...gate, at: new Date().toISOString(), ...gateRecord(input.gate) },
    }),
  );
  await queueRunAfterSwitch(db, input.tenant, row.to_space_id, row.id, input.actor);
  return lockOrThrow(db, input.tenant, row.id);
}

/** Back to the previous space at once: it kept following the active pointers, so nothing is embedded. */
export async function switchBackIn(
  db: Db,
  input: { tenant: string; id: string; actor: string },
): Promise<MigrationRow> {
  await db.exec(lockTenantSpaceExclusive(input.tenant));
  const row = await lockOrThrow(db, input.tenant, input.id);
  expectState(row, ["SWITCHED"], "a switch-back");
  await db.rows(m.lockActivePointers(input.tenant));
  await db.rows(m.lockShadowSpacePointers(input.tenant, row.from_space_id));
  await db.exec(m.dropDeletedPointers(input.tenant));
  await mayServe(db, input.tenant, row.from_space_id, "the previous space");
  await db.rows(m.swapPointers(input.tenant, row.to_space_id));
  await db.rows(m.takeShadowPointers(input.tenant, row.from_space_id));
  await db.rows(m.endSwap());
  await endShadow(db, input.tenant, row.to_space_id, input.actor, `migration ${row.id} switched back`);
  await db.exec(m.setMigrationState(row.id, "SWITCHED_BACK", { endedBy: input.actor }));
  await queueRunAfterSwitch(db, input.tenant, row.from_space_id, row.id, input.actor);
  return lockOrThrow(db, input.tenant, row.id);
}

/**
 * The tenant's set (if it has one) evaluated on the space that now serves, as its callers search
 * it (the default mode): queued in the switch's transaction, so every committed switch, by hand or
 * auto, and every switch-back has its run, and a switch that rolls back has none. The gate's runs
 * judged the candidate before the switch, in the gate's mode; this one is the first measurement of
 * what search actually answers afterwards, and the history's point for the change.
 */
async function queueRunAfterSwitch(db: Db, tenant: string, spaceId: number, migrationId: string, actor: string) {
  await db.rows(enqueueSwitchRun(tenant, spaceId, migrationId, DEFAULT_SEARCH_MODE, actor));
}

/** The candidate is dropped; search never read it. */
export async function abortIn(db: Db, input: { tenant: string; id: string; actor: string }): Promise<MigrationRow> {
  await db.exec(lockTenantSpaceExclusive(input.tenant));
  const row = await lockOrThrow(db, input.tenant, input.id);
  expectState(row, ["BUILDING", "READY"], "an abort");
  await endShadow(db, input.tenant, row.to_space_id, input.actor, `migration ${row.id} aborted`);
  await db.exec(m.setMigrationState(row.id, "ABORTED", { endedBy: input.actor }));
  return lockOrThrow(db, input.tenant, row.id);
}

/** The previous space stops following: no more second embeddings, and no switch-back. */
export async function finishIn(db: Db, input: { tenant: string; id: string; actor: string }): Promise<MigrationRow> {
  await db.exec(lockTenantSpaceExclusive(input.tenant));
  const row = await lockOrThrow(db, input.tenant, input.id);
  expectState(row, ["SWITCHED"], "finishing");
  await endShadow(db, input.tenant, row.from_space_id, input.actor, `migration ${row.id} finished`);
  await db.exec(m.setMigrationState(row.id, "FINISHED", { endedBy: input.actor }));
  return lockOrThrow(db, input.tenant, row.id);
}

async function endShadow(db: Db, tenant: string, spaceId: number, actor: string, reason: string): Promise<void> {
  await db.rows(m.lockShadowSpacePointers(tenant, spaceId));
  await db.exec(m.dropShadowPointers(tenant, spaceId));
  await db.rows(supersedeMigrationTasks(tenant, actor, reason));
}

export type Progress = {
  documents: { total: number; built: number; failed: number; pending: number; running: number };
  failures: { errorCode: string; count: number }[];
  textsEmbedded: number;
  tokensEmbedded: number;
  estimatedCostUsd: number | null;
  documentsPerMinute: number | null;
  etaSeconds: number | null;
};

/** Facts, not guesses: coverage now, the MIGRATE work by status, what was embedded and what it cost. */
export async function progressOf(db: Db, row: MigrationRow, shadow: Space): Promise<Progress> {
  const open = row.state === "BUILDING" || row.state === "READY" || row.state === "SWITCHED";
  const c = open ? await coverageOf(db, row.tenant_id, shadowOf(row)) : null;
  const tasks = await db.rows<{ status: string; error_code: string | null; n: number; recent: number }>(
    m.migrationTasks(row.tenant_id, row.created_at),
  );
  const count = (s: string) => tasks.filter((t) => t.status === s).reduce((a, t) => a + t.n, 0);
  const failures = tasks
    .filter((t) => t.status === "DEAD")
    .map((t) => ({ errorCode: t.error_code ?? "INTERNAL_ERROR", count: t.n }));
  const recent = tasks.reduce((a, t) => a + t.recent, 0);
  const perMinute = recent > 0 ? recent / 2 : null;
  const total = c?.total ?? row.documents_total;
  const built = c?.built ?? (row.state === "ABORTED" || row.state === "SWITCHED_BACK" ? 0 : total);
  const remaining = Math.max(0, total - built);
  const tokens = Number(row.tokens_embedded);
  return {
    documents: {
      total,
      built,
      failed: count("DEAD"),
      pending: count("PENDING") + count("RETRY_WAIT"),
      running: count("RUNNING"),
    },
    failures,
    textsEmbedded: Number(row.texts_embedded),
    tokensEmbedded: tokens,
    estimatedCostUsd: shadow.pricePerMillionTokens === null ? null : (tokens / 1e6) * shadow.pricePerMillionTokens,
    documentsPerMinute: perMinute,
    etaSeconds: remaining === 0 ? 0 : perMinute ? Math.round((remaining / perMinute) * 60) : null,
  };
}
