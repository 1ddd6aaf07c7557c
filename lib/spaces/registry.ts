// The environment's embedding settings as an index space (docs/decisions/039-index-spaces.md §8),
// registered at every start of a worker or the web server. A change of settings never moves a
// tenant: the new space becomes the default for new tenants, and every tenant on the old default
// gets a migration to it that builds in the background; switching stays an operator's decision.
import type pg from "pg";
import type { Config } from "../config";
import { withTransaction } from "../db/pool";
import { OPENAI_DEFAULT_DIMENSIONS, OPENAI_DEFAULT_MODEL } from "../embedding";
import { log } from "../log";
import { DomainError } from "../domain/errors";
import { CHUNKER_VERSION } from "../pipeline/chunker";
import { LOCAL_DEFAULT_DIMS, LOCAL_MODEL } from "../pipeline/local-embedder";
import { hasSpaceIndex, spaceIndexSql } from "./indexes";
import { pgDb } from "./maintenance";
import { startMigrationIn } from "./migrations";
import { loadSpaces } from "./sql";
import { sameIdentity, spaceOfRow, type Space, type SpaceIdentity, type SpaceRow } from "./types";

/** The space the environment describes (EMBEDDING_PROVIDER, EMBEDDING_MODEL, EMBEDDING_DIMENSIONS, OPENAI_BASE_URL). */
export function environmentSpace(cfg: Config): SpaceIdentity & Pick<Space, "baseUrl" | "apiKeyEnv"> {
  if (cfg.EMBEDDING_PROVIDER === "openai")
    return {
      provider: "openai",
      model: cfg.EMBEDDING_MODEL ?? OPENAI_DEFAULT_MODEL,
      dimensions: cfg.EMBEDDING_DIMENSIONS ?? OPENAI_DEFAULT_DIMENSIONS,
      baseUrl: cfg.OPENAI_BASE_URL ?? null,
      apiKeyEnv: "OPENAI_API_KEY",
      chunkerVersion: CHUNKER_VERSION,
      chunkTargetChars: null,
    };
  return {
    provider: "local",
    model: LOCAL_MODEL,
    dimensions: cfg.EMBEDDING_DIMENSIONS ?? LOCAL_DEFAULT_DIMS,
    baseUrl: null,
    apiKeyEnv: null,
    chunkerVersion: CHUNKER_VERSION,
    chunkTargetChars: null,
  };
}

/** A name for a space nobody named: provider or model, then dimensions (`local-384`, `text-embedding-3-small-1536`). */
export function defaultSpaceName(s: SpaceIdentity): string {
  const base =
    s.provider === "local"
      ? "local"
      : s.model
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, "-")
          .replace(/^[^a-z0-9]+/, "");
  return `${base.slice(0, 50) || "space"}-${s.dimensions}`;
}

/** Serializes registrations of concurrent starts (a transaction-level advisory lock). */
const REGISTER_LOCK = 0x69777372; // "iwsr"

export type Registration = { space: Space; created: boolean; becameDefault: boolean; migrationsStarted: string[] };

export async function registerEnvironmentSpace(pool: pg.Pool, cfg: Config): Promise<Registration> {
  const env = environmentSpace(cfg);
  const result = await withTransaction(pool, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock($1)`, [REGISTER_LOCK]);
    const spaces = (await tx.query<SpaceRow>(loadSpaces().text)).rows.map(spaceOfRow);
    let space = spaces.find((s) => !s.retiredAt && sameIdentity(s, env));
    let created = false;
    if (!space) {
      const taken = new Set(spaces.map((s) => s.name));
      let name = defaultSpaceName(env);
      for (let i = 2; taken.has(name); i++) name = `${defaultSpaceName(env)}-${i}`;
      const { rows } = await tx.query<SpaceRow>(
        `INSERT INTO embedding_spaces (name, provider, model, dimensions, base_url, api_key_env, chunker_version, chunk_target_chars)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING id, name, provider, model, dimensions, base_url, api_key_env, chunker_version, chunk_target_chars,
                   texts_per_minute, price_per_million_tokens, is_default, retired_at`,
        [
          name,
          env.provider,
          env.model,
          env.dimensions,
          env.baseUrl,
          env.apiKeyEnv,
          env.chunkerVersion,
          env.chunkTargetChars,
        ],
      );
      space = spaceOfRow(rows[0]);
      created = true;
    } else if (space.baseUrl !== env.baseUrl || space.apiKeyEnv !== env.apiKeyEnv) {
      // Where the environment's own space is reached is the environment's to say.
      await tx.query(`UPDATE embedding_spaces SET base_url = $2, api_key_env = $3 WHERE id = $1`, [
        space.id,
        env.baseUrl,
        env.apiKeyEnv,
      ]);
      space = { ...space, baseUrl: env.baseUrl, apiKeyEnv: env.apiKeyEnv };
    }
    const previous = spaces.find((s) => s.isDefault) ?? null;
    const migrationsStarted: string[] = [];
    if (previous?.id !== space.id) {
      await tx.query(`UPDATE embedding_spaces SET is_default = false WHERE is_default`);
      await tx.query(`UPDATE embedding_spaces SET is_default = true WHERE id = $1`, [space.id]);
      if (previous) {
        const tenants = await tx.query<{ id: string }>(
          `SELECT t.id FROM tenants t
            WHERE t.active_space_id = $1
              AND NOT EXISTS (SELECT 1 FROM space_migrations m WHERE m.tenant_id = t.id AND m.state IN ('BUILDING', 'READY', 'SWITCHED'))
            ORDER BY t.id`,
          [previous.id],
        );
        for (const t of tenants.rows) {
          // One tenant an operator started a migration for meanwhile is skipped, not the start.
          await tx.query("SAVEPOINT tenant_migration");
          try {
            const row = await startMigrationIn(pgDb(tx), {
              tenant: t.id,
              to: space,
              autoSwitch: false,
              actor: "system",
              reason: `the embedding settings changed at start (${previous.name} → ${space.name})`,
              maxAttempts: cfg.MAX_ATTEMPTS,
            });
            migrationsStarted.push(row.id);
            await tx.query("RELEASE SAVEPOINT tenant_migration");
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
            await tx.query("ROLLBACK TO SAVEPOINT tenant_migration");
            log.warn({ tenant: t.id, code: err.code }, "no migration started for a tenant at start");
          }
        }
      }
    }
    // A space some tenant searches needs its index now; one a migration is loading gets it in one
    // bulk build when the migration reaches coverage (lib/spaces/maintenance.ts). Made here, under
    // the registration lock: IF NOT EXISTS does not hold against a concurrent CREATE INDEX, and
    // workers started together with new settings would race on it.
    const loading = await tx.query(
      `SELECT 1 FROM space_migrations WHERE to_space_id = $1 AND state = 'BUILDING' LIMIT 1`,
      [space.id],
    );
    if (loading.rows.length === 0 && !(await hasSpaceIndex(tx, space.id))) await tx.query(spaceIndexSql(space, false));
    return { space, created, becameDefault: previous?.id !== space.id, migrationsStarted };
  });
  if (result.created || result.becameDefault)
    log.info(
      {
        space: result.space.name,
        created: result.created,
        migrationsStarted: result.migrationsStarted.length,
      },
      result.migrationsStarted.length > 0
        ? "the embedding settings changed: new tenants start on this space; existing tenants keep searching their space while a migration builds this one (switch on the Migrations page)"
        : "registered the environment's embedding settings as the default index space",
    );
  return result;
}
