// The worker's part of index-space migrations: a BUILDING migration whose shadow space serves
// every document gets its space's HNSW index (one bulk build) and turns READY; one started with
// autoSwitch then switches. Run from the worker's maintenance loop on every worker; a session
// advisory lock per migration makes one of them do it.
import type pg from "pg";
import type { Config } from "../config";
import { withTransaction } from "../db/pool";
import { poolIsEmbedded } from "../db/prepared";
import { log } from "../log";
import { DomainError } from "../domain/errors";
import * as m from "./actions-sql";
import { coverageOf, shadowOf, switchIn, type Db, type MigrationRow } from "./migrations";
import { buildSpaceIndex, hasSpaceIndex } from "./indexes";
import { SPACE_LOCK_NAMESPACE } from "./sql";
import { SpaceEmbedders } from "./embedders";
import { gateForSwitch } from "../evaluation/runner";
import { recordGate } from "../evaluation/sql";
import { DEFAULT_EVALUATION_TOLERANCE } from "../evaluation/settings";
import type { SearchMode } from "../search/modes";

export type MigrationSettings = { indexMemoryMb: number; parallelWorkers: number };

export const migrationSettings = (cfg: Config): MigrationSettings => ({
  indexMemoryMb: cfg.MIGRATION_INDEX_MEMORY_MB,
  parallelWorkers: cfg.MIGRATION_INDEX_PARALLEL_WORKERS,
});

/** A pg connection (or transaction) as the migration procedures' Db. */
export function pgDb(c: pg.Pool | pg.PoolClient): Db {
  return {
    rows: async <T>(s: { text: string; values: unknown[] }) => (await c.query(s.text, s.values)).rows as T[],
    exec: async (s) => void (await c.query(s.text, s.values)),
  };
}

/**
 * Key of the session lock one worker holds while it advances a migration: per target space (namespace
 * + 1, space id), so two migrations into one space never build its index at once.
 */
const ADVANCE_LOCK = SPACE_LOCK_NAMESPACE + 1;

/** The quality gate of an auto-switch (docs/evaluation.md#the-gate): the embedders it searches with, its tolerance. */
export type GateSettings = { spaces?: SpaceEmbedders; tolerance?: number; mode?: SearchMode };

/** An auto-switch refused by its gate is judged again after this long (or once the set changes). */
const AUTO_SWITCH_RETRY_MS = 10 * 60_000;

export async function advanceMigrations(
  pool: pg.Pool,
  actor: string,
  settings: MigrationSettings,
  gate: GateSettings = {},
): Promise<{ ready: string[]; switched: string[] }> {
  const out = { ready: [] as string[], switched: [] as string[] };
  const rows = await pgDb(pool).rows<MigrationRow>(m.buildingMigrations());
  for (const row of rows) {
    const client = await pool.connect();
    try {
      const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1, $2::int) AS ok`, [
        ADVANCE_LOCK,
        row.to_space_id,
      ]);
      if (!got.rows[0].ok) continue;
      try {
        if (await advanceOne(pool, client, row, actor, settings, out, gate)) continue;
      } finally {
        await client.query(`SELECT pg_advisory_unlock($1, $2::int)`, [ADVANCE_LOCK, row.to_space_id]);
      }
    } finally {
      client.release();
    }
  }
  return out;
}

async function advanceOne(
  pool: pg.Pool,
  client: pg.PoolClient,
  row: MigrationRow,
  actor: string,
  settings: MigrationSettings,
  out: { ready: string[]; switched: string[] },
  gateSettings: GateSettings,
): Promise<boolean> {
  if (row.state === "BUILDING") {
    const c = await coverageOf(pgDb(client), row.tenant_id, shadowOf(row));
    if (c.built < c.total || c.unverified > 0) return false;
    if (!(await hasSpaceIndex(client, row.to_space_id))) {
      const [space] = (
        await client.query<{ id: number; dimensions: number }>(
          `SELECT id, dimensions FROM embedding_spaces WHERE id = $1`,
          [row.to_space_id],
        )
      ).rows;
      const { ms } = await buildSpaceIndex(pool, space, {
        concurrently: !(await poolIsEmbedded(pool)),
        memoryMb: settings.indexMemoryMb,
        parallelWorkers: settings.parallelWorkers,
      });
      log.info({ migration: row.id, spaceId: space.id, ms: Math.round(ms) }, "built the candidate space's HNSW index");
    }
    const moved = await withTransaction(pool, async (tx) => {
      const [cur] = await pgDb(tx).rows<MigrationRow>(m.lockMigration(row.tenant_id, row.id));
      if (cur?.state !== "BUILDING") return false;
      await pgDb(tx).exec(m.setMigrationState(row.id, "READY", { ready: true }));
      return true;
    });
    if (moved) out.ready.push(row.id);
  }
  if (!row.auto_switch) return true;
  // Never switches a candidate that answers the tenant's evaluation set worse: the gate judges it
  // first (outside the switch's locks), and a refusal is recorded on the migration and judged
  // again only after AUTO_SWITCH_RETRY_MS or a new set version, not on every pass.
  const refused = row.gate as { autoSwitchRefusedAt?: string; setVersion?: number } | null;
  const [latest] = (
    await client.query<{ version: number }>(
      `SELECT max(version) AS version FROM evaluation_sets WHERE tenant_id = $1`,
      [row.tenant_id],
    )
  ).rows;
  if (
    refused?.autoSwitchRefusedAt &&
    refused.setVersion === latest?.version &&
    Date.now() - Date.parse(refused.autoSwitchRefusedAt) < AUTO_SWITCH_RETRY_MS
  )
    return true;
  const actorName = `${actor} (autoSwitch)`;
  const verdict = await gateForSwitch(pool, gateSettings.spaces ?? new SpaceEmbedders({ timeoutMs: 30_000 }), {
    tenant: row.tenant_id,
    migrationId: row.id,
    actor: actorName,
    tolerance: gateSettings.tolerance ?? DEFAULT_EVALUATION_TOLERANCE,
    mode: gateSettings.mode,
  });
  try {
    await withTransaction(pool, (tx) =>
      switchIn(pgDb(tx), {
        tenant: row.tenant_id,
        id: row.id,
        actor: actorName,
        indexReady: (id) => hasSpaceIndex(tx, id),
        gate: { verdict },
      }),
    );
    out.switched.push(row.id);
  } catch (err) {
    if (err instanceof DomainError && err.code === "EVALUATION_REGRESSED" && verdict?.evaluated) {
      await pgDb(pool).exec(recordGate(row.id, { ...verdict, autoSwitchRefusedAt: new Date().toISOString() }));
      log.warn(
        {
          migration: row.id,
          tenant: row.tenant_id,
          active: verdict.active.ndcgAt10,
          candidate: verdict.candidate.ndcgAt10,
        },
        "auto-switch refused: the candidate answers the evaluation set worse",
      );
      return true;
    }
    // Not ready again (a publish since coverage was reached): the next pass tries again.
    if (!(err instanceof DomainError && err.code === "MIGRATION_NOT_READY")) throw err;
  }
  return true;
}
