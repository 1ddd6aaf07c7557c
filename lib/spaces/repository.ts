import "server-only";
import type pg from "pg";
import { transaction, queryRows, execute, iso, type Tx } from "../db/repository";
import { writeAudit } from "../audit/repository";
import { DomainError } from "../domain/errors";
import { TaskError } from "../queue/errors";
import { LOCAL_MODEL } from "../pipeline/local-embedder";
import { CHUNKER_VERSION } from "../pipeline/chunker";
import type { Statement } from "../db/pool";
import { embedderForSpace, SpaceEmbedders } from "./embedders";
import { gateForSwitch } from "../evaluation/runner";
import { DEFAULT_EVALUATION_TOLERANCE } from "../evaluation/settings";
import type { SearchMode } from "../search/modes";
import { hasSpaceIndex, spaceIndexName, VALID_INDEX_SQL } from "./indexes";
import {
  abortIn,
  finishIn,
  progressOf,
  shadowOf,
  startMigrationIn,
  switchBackIn,
  switchIn,
  type Db,
  type MigrationRow,
} from "./migrations";
import { MIGRATION_COLUMNS } from "./actions-sql";
import { loadSpaces } from "./sql";
import { OPEN_MIGRATION_STATES, SPACE_COLUMNS, spaceOfRow, type Space, type SpaceRow } from "./types";
import type { MigrationView, NewSpaceBody, SpacePatchBody, SpaceView } from "./schemas";

// Index spaces and migrations for the admin API, the dashboard and the CLI
// (docs/decisions/039-index-spaces.md). Each action is one transaction with its audit row; the
// migration procedures themselves are lib/spaces/migrations.ts, shared with the worker.

type Actor = { subject: string };

const txDb = (tx: Tx): Db => ({
  rows: <T>(s: Statement) => queryRows<T>(tx, s),
  exec: async (s: Statement) => void (await execute(tx, s)),
});

async function spacesOf(tx: Tx): Promise<Space[]> {
  return (await queryRows<SpaceRow>(tx, loadSpaces())).map(spaceOfRow);
}

async function spaceByName(tx: Tx, name: string): Promise<Space> {
  const s = (await spacesOf(tx)).find((x) => x.name === name);
  if (!s) throw new DomainError("NOT_FOUND", `index space ${name} not found`);
  return s;
}

export async function listSpaces(pool: pg.Pool): Promise<SpaceView[]> {
  return transaction(pool, async (tx) => {
    const rows = await tx.$queryRawUnsafe<
      (SpaceRow & {
        created_at: Date;
        created_by: string;
        tenants_active: number;
        open_migrations: number;
        indexed: boolean;
      })[]
    >(
      `SELECT ${SPACE_COLUMNS}, created_at, created_by,
              (SELECT count(*)::int FROM tenants t WHERE t.active_space_id = s.id) AS tenants_active,
              (SELECT count(*)::int FROM space_migrations m
                WHERE (m.from_space_id = s.id OR m.to_space_id = s.id) AND m.state IN ('BUILDING', 'READY', 'SWITCHED')) AS open_migrations,
              EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                       WHERE c.relname = 'chunk_vectors_space_' || s.id || '_hnsw' AND c.relnamespace = current_schema()::regnamespace AND i.indisvalid) AS indexed
         FROM embedding_spaces s ORDER BY s.retired_at NULLS FIRST, s.id`,
    );
    return rows.map((r) => toSpaceView(spaceOfRow(r), r));
  });
}

function toSpaceView(
  s: Space,
  r: { created_at: Date; created_by: string; tenants_active: number; open_migrations: number; indexed: boolean },
): SpaceView {
  return {
    id: s.id,
    name: s.name,
    provider: s.provider,
    model: s.model,
    dimensions: s.dimensions,
    baseUrl: s.baseUrl,
    apiKeyEnv: s.apiKeyEnv,
    chunker: { version: s.chunkerVersion, targetChars: s.chunkTargetChars },
    textsPerMinute: s.textsPerMinute,
    pricePerMillionTokens: s.pricePerMillionTokens,
    isDefault: s.isDefault,
    retiredAt: s.retiredAt ? iso(s.retiredAt) : null,
    createdAt: r.created_at.toISOString(),
    createdBy: r.created_by,
    tenantsActive: r.tenants_active,
    openMigrations: r.open_migrations,
    indexBuilt: r.indexed,
  };
}

/**
 * One probe call before a space is stored: a space that cannot embed (its key's variable unset, an
 * unreachable base URL, a provider that answers other dimensions) is refused with a stable code and
 * nothing is written.
 */
export async function probeSpace(space: Space, timeoutMs: number): Promise<{ ms: number }> {
  let embedder;
  try {
    embedder = embedderForSpace(space, timeoutMs);
  } catch {
    throw new DomainError(
      "SPACE_KEY_MISSING",
      space.apiKeyEnv
        ? `the variable ${space.apiKeyEnv} is not set in the server's environment: set it (on the web server and every worker), then create the space`
        : "an OpenAI-compatible space needs apiKeyEnv: the name of the environment variable that holds its key",
    );
  }
  const t0 = performance.now();
  try {
    const [v] = await embedder.embed(["indexwright index space probe"], AbortSignal.timeout(timeoutMs));
    if (v?.length !== space.dimensions)
      throw new DomainError(
        "SPACE_DIMENSIONS_MISMATCH",
        `the provider answered ${v?.length ?? 0} dimensions; the space asks for ${space.dimensions}`,
      );
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const message = (err as Error).message;
    if (err instanceof TaskError && err.code === "EMBEDDING_INVALID_RESPONSE" && /dimension/i.test(message))
      throw new DomainError("SPACE_DIMENSIONS_MISMATCH", `the probe call's answer did not fit the space: ${message}`);
    throw new DomainError("SPACE_UNREACHABLE", `the probe call failed: ${message}`);
  }
  return { ms: performance.now() - t0 };
}

export async function createSpace(
  pool: pg.Pool,
  actor: Actor,
  body: NewSpaceBody,
  timeoutMs: number,
): Promise<SpaceView> {
  if (body.provider === "local" && body.model !== undefined && body.model !== LOCAL_MODEL)
    throw new DomainError("VALIDATION_FAILED", `model: the local provider has one model, ${LOCAL_MODEL}; omit model`);
  if (body.provider === "openai" && !body.model)
    throw new DomainError("VALIDATION_FAILED", "model: required for an OpenAI-compatible space");
  if (body.provider === "local" && (body.baseUrl || body.apiKeyEnv))
    throw new DomainError("VALIDATION_FAILED", "baseUrl and apiKeyEnv are for OpenAI-compatible spaces");
  const candidate: Space = {
    id: 0,
    name: body.name,
    provider: body.provider,
    model: body.provider === "local" ? LOCAL_MODEL : body.model!,
    dimensions: body.dimensions,
    baseUrl: body.baseUrl ?? null,
    apiKeyEnv: body.provider === "openai" ? (body.apiKeyEnv ?? "OPENAI_API_KEY") : null,
    chunkerVersion: CHUNKER_VERSION,
    chunkTargetChars: body.chunker?.targetChars ?? null,
    textsPerMinute: body.textsPerMinute ?? null,
    pricePerMillionTokens: body.pricePerMillionTokens ?? null,
    isDefault: false,
    retiredAt: null,
  };
  const taken = await transaction(pool, async (tx) => (await spacesOf(tx)).some((s) => s.name === body.name));
  if (taken) throw new DomainError("SPACE_NAME_TAKEN", `an index space named ${body.name} exists`);
  const probe = await probeSpace(candidate, timeoutMs);
  return transaction(pool, async (tx) => {
    const rows = await tx.$queryRaw<{ id: number }[]>`
      INSERT INTO embedding_spaces (name, provider, model, dimensions, base_url, api_key_env, chunker_version, chunk_target_chars,
                                    texts_per_minute, price_per_million_tokens, created_by)
      VALUES (${candidate.name}, ${candidate.provider}, ${candidate.model}, ${candidate.dimensions}::int, ${candidate.baseUrl},
              ${candidate.apiKeyEnv}, ${candidate.chunkerVersion}, ${candidate.chunkTargetChars}::int, ${candidate.textsPerMinute}::int,
              ${candidate.pricePerMillionTokens}::float8, ${actor.subject})
      ON CONFLICT (name) DO NOTHING RETURNING id`;
    if (rows.length === 0) throw new DomainError("SPACE_NAME_TAKEN", `an index space named ${body.name} exists`);
    await writeAudit(tx, {
      actor: actor.subject,
      action: "space.create",
      targetType: "embedding_space",
      targetId: body.name,
      detail: { ...body, probeMs: Math.round(probe.ms) },
    });
    return (await viewOf(tx, rows[0].id))!;
  });
}

async function viewOf(tx: Tx, id: number): Promise<SpaceView | null> {
  const rows = await tx.$queryRawUnsafe<
    (SpaceRow & {
      created_at: Date;
      created_by: string;
      tenants_active: number;
      open_migrations: number;
      indexed: boolean;
    })[]
  >(
    `SELECT ${SPACE_COLUMNS}, created_at, created_by,
            (SELECT count(*)::int FROM tenants t WHERE t.active_space_id = s.id) AS tenants_active,
            (SELECT count(*)::int FROM space_migrations m
              WHERE (m.from_space_id = s.id OR m.to_space_id = s.id) AND m.state IN ('BUILDING', 'READY', 'SWITCHED')) AS open_migrations,
            EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                       WHERE c.relname = 'chunk_vectors_space_' || s.id || '_hnsw' AND c.relnamespace = current_schema()::regnamespace AND i.indisvalid) AS indexed
       FROM embedding_spaces s WHERE s.id = $1`,
    id,
  );
  return rows[0] ? toSpaceView(spaceOfRow(rows[0]), rows[0]) : null;
}

/** Rate, price and where the space is reached; what it embeds with (provider, model, dimensions, chunker) never changes. */
export async function updateSpace(pool: pg.Pool, actor: Actor, name: string, body: SpacePatchBody): Promise<SpaceView> {
  return transaction(pool, async (tx) => {
    const s = await spaceByName(tx, name);
    if (s.provider === "local" && (body.baseUrl || body.apiKeyEnv))
      throw new DomainError("VALIDATION_FAILED", "baseUrl and apiKeyEnv are for OpenAI-compatible spaces");
    const pick = <K extends keyof SpacePatchBody>(k: K, cur: unknown) => (k in body ? body[k] : cur);
    await tx.$executeRaw`
      UPDATE embedding_spaces
         SET base_url = ${pick("baseUrl", s.baseUrl) as string | null},
             api_key_env = ${pick("apiKeyEnv", s.apiKeyEnv) as string | null},
             texts_per_minute = ${pick("textsPerMinute", s.textsPerMinute) as number | null}::int,
             price_per_million_tokens = ${pick("pricePerMillionTokens", s.pricePerMillionTokens) as number | null}::float8
       WHERE id = ${s.id}::int`;
    await writeAudit(tx, {
      actor: actor.subject,
      action: "space.update",
      targetType: "embedding_space",
      targetId: name,
      detail: body,
    });
    return (await viewOf(tx, s.id))!;
  });
}

/** A space no tenant searches and no open migration uses is retired: nothing new is built in it. */
export async function retireSpace(
  pool: pg.Pool,
  actor: Actor,
  name: string,
  reason: string | null,
): Promise<SpaceView> {
  return transaction(pool, async (tx) => {
    const s = await spaceByName(tx, name);
    if (s.retiredAt) return (await viewOf(tx, s.id))!;
    if (s.isDefault)
      throw new DomainError(
        "SPACE_IN_USE",
        `${name} is the default space of new tenants (the environment's embedding settings)`,
      );
    const [use] = await tx.$queryRaw<{ tenants: number; migrations: number }[]>`
      SELECT (SELECT count(*)::int FROM tenants WHERE active_space_id = ${s.id}::int) AS tenants,
             (SELECT count(*)::int FROM space_migrations WHERE (from_space_id = ${s.id}::int OR to_space_id = ${s.id}::int)
                AND state IN ('BUILDING', 'READY', 'SWITCHED')) AS migrations`;
    if (use.tenants > 0 || use.migrations > 0)
      throw new DomainError(
        "SPACE_IN_USE",
        `${name} is searched by ${use.tenants} tenant(s) and used by ${use.migrations} open migration(s); migrate them away first`,
        use,
      );
    await tx.$executeRaw`UPDATE embedding_spaces SET retired_at = now() WHERE id = ${s.id}::int`;
    await writeAudit(tx, {
      actor: actor.subject,
      action: "space.retire",
      targetType: "embedding_space",
      targetId: name,
      reason,
    });
    return (await viewOf(tx, s.id))!;
  });
}

async function migrationView(tx: Tx, row: MigrationRow): Promise<MigrationView> {
  const spaces = await spacesOf(tx);
  const from = spaces.find((s) => s.id === row.from_space_id)!;
  const to = spaces.find((s) => s.id === row.to_space_id)!;
  const open = (OPEN_MIGRATION_STATES as readonly string[]).includes(row.state);
  const shadow = open ? shadowOf(row) : null;
  const progress = await progressOf(txDb(tx), row, shadow === from.id ? from : to);
  const ref = (s: Space) => ({ id: s.id, name: s.name, model: s.model, dimensions: s.dimensions });
  const activeId = row.state === "SWITCHED" || row.state === "FINISHED" ? to.id : from.id;
  return {
    id: row.id,
    tenant: row.tenant_id,
    state: row.state,
    from: ref(from),
    to: ref(to),
    active: activeId === to.id ? to.name : from.name,
    shadow: shadow === null ? null : shadow === to.id ? to.name : from.name,
    autoSwitch: row.auto_switch,
    ...progress,
    indexBuilt: await hasSpaceIndexTx(tx, to.id),
    evaluation: row.gate ?? null,
    reason: row.reason,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    readyAt: row.ready_at ? iso(row.ready_at) : null,
    switchedAt: row.switched_at ? iso(row.switched_at) : null,
    switchedBy: row.switched_by,
    endedAt: row.ended_at ? iso(row.ended_at) : null,
    endedBy: row.ended_by,
  };
}

async function hasSpaceIndexTx(tx: Tx, spaceId: number): Promise<boolean> {
  return (await tx.$queryRawUnsafe<unknown[]>(VALID_INDEX_SQL, spaceIndexName(spaceId))).length > 0;
}

export async function listMigrations(pool: pg.Pool, tenant: string): Promise<MigrationView[]> {
  return transaction(pool, async (tx) => {
    const rows = await tx.$queryRawUnsafe<MigrationRow[]>(
      `SELECT ${MIGRATION_COLUMNS} FROM space_migrations m WHERE m.tenant_id = $1 ORDER BY m.id DESC LIMIT 50`,
      tenant,
    );
    return Promise.all(rows.map((r) => migrationView(tx, r)));
  });
}

export async function getMigration(pool: pg.Pool, tenant: string, id: string): Promise<MigrationView> {
  return transaction(pool, async (tx) => {
    const [row] = await tx.$queryRawUnsafe<MigrationRow[]>(
      `SELECT ${MIGRATION_COLUMNS} FROM space_migrations m WHERE m.tenant_id = $1 AND m.id = $2::bigint`,
      tenant,
      id,
    );
    if (!row) throw new DomainError("NOT_FOUND", `migration ${id} of tenant ${tenant} not found`);
    return migrationView(tx, row);
  });
}

export async function startMigration(
  pool: pg.Pool,
  actor: Actor,
  tenant: string,
  body: { space: string; autoSwitch?: boolean; reason?: string },
  maxAttempts: number,
): Promise<MigrationView> {
  return transaction(pool, async (tx) => {
    const to = await spaceByName(tx, body.space);
    const row = await startMigrationIn(txDb(tx), {
      tenant,
      to,
      autoSwitch: body.autoSwitch ?? false,
      actor: actor.subject,
      reason: body.reason ?? null,
      maxAttempts,
    });
    await writeAudit(tx, {
      actor: actor.subject,
      action: "migration.start",
      tenant,
      targetType: "migration",
      targetId: row.id,
      reason: body.reason ?? null,
      detail: { space: to.name, autoSwitch: row.auto_switch },
    });
    return migrationView(tx, row);
  });
}

/** A migration for every tenant on `from` (every tenant not on `space` when absent); tenants with one open are skipped. */
export async function startFleetMigration(
  pool: pg.Pool,
  actor: Actor,
  body: { from?: string; space: string; autoSwitch?: boolean; reason?: string },
  maxAttempts: number,
): Promise<{ started: MigrationView[]; skipped: { tenant: string; reason: string }[] }> {
  const tenants = await transaction(pool, async (tx) => {
    const to = await spaceByName(tx, body.space);
    const from = body.from ? await spaceByName(tx, body.from) : null;
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM tenants WHERE active_space_id <> ${to.id}::int AND (${from?.id ?? null}::int IS NULL OR active_space_id = ${from?.id ?? null}::int)
       ORDER BY id`;
    return rows.map((r) => r.id);
  });
  const started: MigrationView[] = [];
  const skipped: { tenant: string; reason: string }[] = [];
  // One transaction per tenant: each takes its own tenant's space lock, and one tenant's refusal
  // (a migration already open) does not undo the others.
  for (const tenant of tenants) {
    try {
      started.push(await startMigration(pool, actor, tenant, body, maxAttempts));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      skipped.push({ tenant, reason: `${err.code}: ${err.message}` });
    }
  }
  return { started, skipped };
}

export type MigrationAction = "switch" | "switch-back" | "abort" | "finish";

/** A migration action's body: a reason, and for a switch `force` over a regressed evaluation (reason required). */
export type MigrationActionBody = { reason?: string | null; force?: boolean };

export async function actOnMigration(
  pool: pg.Pool,
  actor: Actor,
  tenant: string,
  id: string,
  action: MigrationAction,
  body: string | null | MigrationActionBody,
  /** The switch's quality gate (docs/evaluation.md#the-gate): the embedders it searches with and its tolerance. */
  gateOptions: { spaces?: SpaceEmbedders; tolerance?: number; mode?: SearchMode } = {},
): Promise<MigrationView> {
  const { reason = null, force = false } = typeof body === "object" && body !== null ? body : { reason: body };
  if (force && !reason) throw new DomainError("VALIDATION_FAILED", "reason: a forced switch needs a reason");
  // The gate searches both spaces before the switch's transaction, which holds the tenant's
  // space lock and every pointer: no search (nor query embedding) runs under those locks.
  const gate =
    action === "switch"
      ? {
          verdict: await gateForSwitch(pool, gateOptions.spaces ?? new SpaceEmbedders({ timeoutMs: 30_000 }), {
            tenant,
            migrationId: id,
            actor: actor.subject,
            tolerance: gateOptions.tolerance ?? DEFAULT_EVALUATION_TOLERANCE,
            mode: gateOptions.mode,
          }),
          force,
          reason,
        }
      : undefined;
  return transaction(pool, async (tx) => {
    const db = txDb(tx);
    const input = { tenant, id, actor: actor.subject };
    const row =
      action === "switch"
        ? await switchIn(db, { ...input, indexReady: (spaceId) => hasSpaceIndexTx(tx, spaceId), gate })
        : action === "switch-back"
          ? await switchBackIn(db, input)
          : action === "abort"
            ? await abortIn(db, input)
            : await finishIn(db, input);
    const forced = action === "switch" && (row.gate as { forced?: boolean } | null)?.forced === true;
    await writeAudit(tx, {
      actor: actor.subject,
      // A switch over a regressed evaluation is its own action: the override is what an auditor looks for.
      action: forced ? "migration.force_switch" : `migration.${action.replace("-", "_")}`,
      tenant,
      targetType: "migration",
      targetId: id,
      reason,
      detail: { state: row.state, gate: action === "switch" ? row.gate : undefined },
    });
    return migrationView(tx, row);
  });
}

/** The tenant's active space (publish counts tokens with its model; the document page names it). */
export async function tenantSpace(pool: pg.Pool, tenant: string): Promise<Space> {
  return transaction(pool, async (tx) => {
    const [{ id }] = await tx.$queryRaw<{ id: number }[]>`
      SELECT coalesce((SELECT active_space_id FROM tenants WHERE id = ${tenant}), indexwright_default_space()) AS id`;
    return (await spacesOf(tx)).find((s) => s.id === id)!;
  });
}

export { hasSpaceIndex };
