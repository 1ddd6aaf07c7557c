import "server-only";
import { Prisma, type Tx } from "../db/repository";

// Sessions as administration sees them: ending them when a person is disabled, their password is
// reset, the token a session was opened with is revoked, or an admin signs them out everywhere.
// Opening a session, signing out and resolving a cookie on every request stay in ./session.ts
// (one raw statement each on the shared pool; see there).

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
