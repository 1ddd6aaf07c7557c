import "server-only";
import { createHash } from "node:crypto";
import type pg from "pg";
import { setting } from "../config";

// The bootstrap token: configured (INDEXWRIGHT_BOOTSTRAP_TOKEN, or the data directory's file that
// `start` passes as that setting) until an admin rotates or revokes it; from then on the one row
// of bootstrap_token decides, for every web process at once (migration 20261201120000). Rotation
// and revocation write through ./repository.ts.

export const sha256 = (v: string) => createHash("sha256").update(v).digest("hex");

export type BootstrapState = { source: "configured" | "rotated" | "revoked"; hash: string | null };

/** The SHA-256 of the bootstrap token that signs in now, or null when none does. One primary-key read. */
export async function bootstrapState(pool: pg.Pool): Promise<BootstrapState> {
  const { rows } = await pool.query<{ token_hash: string | null }>(`SELECT token_hash FROM bootstrap_token WHERE id`);
  if (rows[0]) return { source: rows[0].token_hash ? "rotated" : "revoked", hash: rows[0].token_hash };
  const configured = setting("INDEXWRIGHT_BOOTSTRAP_TOKEN");
  return { source: "configured", hash: configured ? sha256(configured) : null };
}

export async function currentBootstrapHash(pool: pg.Pool): Promise<string | null> {
  return (await bootstrapState(pool)).hash;
}
