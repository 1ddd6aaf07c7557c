import "server-only";
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { Prisma, transaction, type Tx } from "../db/repository";
import { writeAudit } from "../audit/repository";
import { sha256 } from "./bootstrap";
import type { Principal } from "./principal";

// Sessions as administration sees them: ending them when a person is disabled, their password is
// reset, the token a session was opened with is revoked, or an admin signs them out everywhere.
// Opening a session, signing out and resolving a cookie on every request stay in ./session.ts
// (one raw statement each on the shared pool; see there). Also the bootstrap token's rotation and
// revocation (its state is read per request in ./bootstrap.ts).

/** Ends every open session of a user or token, in the caller's transaction; returns how many ended. */
export async function endSessionsOf(tx: Tx, owner: { userId: string } | { tokenId: string }): Promise<number> {
  // A person's sessions include those opened with their personal tokens: "sign out everywhere" and a
  // password reset must end those too.
  const match =
    "userId" in owner
      ? Prisma.sql`(user_id = ${owner.userId}::uuid OR token_id IN (SELECT id FROM api_tokens WHERE user_id = ${owner.userId}::uuid))`
      : Prisma.sql`token_id = ${owner.tokenId}::uuid`;
  return tx.$executeRaw`UPDATE sessions SET revoked_at = now() WHERE ${match} AND revoked_at IS NULL AND expires_at > now()`;
}

/**
 * Replaces the bootstrap token with a new random one, returned once (only its hash is stored), or
 * revokes it (`token` null). Sessions opened with the old token end in the same transaction: the
 * token is an all-tenant admin credential, and a rotation is usually because it leaked.
 */
async function replace(pool: pg.Pool, actor: Principal, token: string | null): Promise<{ sessionsEnded: number }> {
  return transaction(pool, async (tx) => {
    const before = await tx.$queryRaw<
      { token_hash: string | null }[]
    >`SELECT token_hash FROM bootstrap_token WHERE id FOR UPDATE`;
    const hash = token === null ? null : sha256(token);
    await tx.$executeRaw`INSERT INTO bootstrap_token (id, token_hash, changed_at, changed_by) VALUES (true, ${hash}, now(), ${actor.subject})
      ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash, changed_at = now(), changed_by = EXCLUDED.changed_by`;
    const sessionsEnded =
      await tx.$executeRaw`UPDATE sessions SET revoked_at = now() WHERE bootstrap_hash IS NOT NULL AND revoked_at IS NULL AND expires_at > now()`;
    const from = before[0] ? (before[0].token_hash ? "rotated" : "revoked") : "configured";
    await writeAudit(tx, {
      actor: actor.subject,
      action: token === null ? "bootstrap_token.revoke" : "bootstrap_token.rotate",
      targetType: "bootstrap_token",
      targetId: "bootstrap",
      detail: { from, sessionsEnded },
    });
    return { sessionsEnded };
  });
}

export async function rotateBootstrapToken(
  pool: pg.Pool,
  actor: Principal,
): Promise<{ token: string; sessionsEnded: number }> {
  const token = `iwb_${randomBytes(24).toString("base64url")}`;
  return { token, ...(await replace(pool, actor, token)) };
}

export async function revokeBootstrapToken(
  pool: pg.Pool,
  actor: Principal,
): Promise<{ revoked: true; sessionsEnded: number }> {
  return { revoked: true, ...(await replace(pool, actor, null)) };
}
