import type pg from "pg";
import type { Embedder } from "../../lib/embedding/types";
import { LOCAL_MODEL } from "../../lib/pipeline/local-embedder";
import { CHUNKER_VERSION } from "../../lib/pipeline/chunker";
import { spaceIndexSql } from "../../lib/spaces/indexes";

/**
 * The index space an embedder embeds in, registered (once) with its HNSW index; with `tenants`,
 * those tenants are made active on it (created if need be); with `asDefault`, new tenants start on it.
 */
export async function spaceFor(
  pool: pg.Pool,
  embedder: Pick<Embedder, "model" | "dimensions">,
  opts: {
    tenants?: string[];
    /** Every tenant there is, and (asDefault) every one created later. */
    allTenants?: boolean;
    asDefault?: boolean;
    name?: string;
    chunkTargetChars?: number | null;
  } = {},
): Promise<number> {
  const provider = embedder.model === LOCAL_MODEL ? "local" : "openai";
  const name =
    opts.name ??
    `${embedder.model
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .slice(0, 40)}-${embedder.dimensions}${opts.chunkTargetChars ? `-c${opts.chunkTargetChars}` : ""}`;
  const { rows } = await pool.query<{ id: number }>(
    `WITH ins AS (
       INSERT INTO embedding_spaces (name, provider, model, dimensions, api_key_env, chunker_version, chunk_target_chars)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING RETURNING id)
     SELECT id FROM ins UNION ALL SELECT id FROM embedding_spaces WHERE name = $1`,
    [
      name,
      provider,
      embedder.model,
      embedder.dimensions,
      provider === "openai" ? "OPENAI_API_KEY" : null,
      CHUNKER_VERSION,
      opts.chunkTargetChars ?? null,
    ],
  );
  const id = rows[0].id;
  await pool.query(spaceIndexSql({ id, dimensions: embedder.dimensions }, false));
  if (opts.asDefault) {
    await pool.query(`UPDATE embedding_spaces SET is_default = false WHERE is_default AND id <> $1`, [id]);
    await pool.query(`UPDATE embedding_spaces SET is_default = true WHERE id = $1`, [id]);
  }
  if (opts.allTenants) await pool.query(`UPDATE tenants SET active_space_id = $1`, [id]);
  for (const t of opts.tenants ?? [])
    await pool.query(
      `INSERT INTO tenants (id, name, active_space_id) VALUES ($1, $1, $2) ON CONFLICT (id) DO UPDATE SET active_space_id = $2`,
      [t, id],
    );
  return id;
}
