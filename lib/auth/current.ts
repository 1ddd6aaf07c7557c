import "server-only";
import { cookies } from "next/headers";
import { cache } from "react";
import { getPool } from "../db/pool";
import { SESSION_COOKIE, principalForSession } from "./session";
import type { Principal } from "./principal";

/**
 * The signed-in person for server components, or null. Once per request: the layout and the page
 * both ask, and each ask is a session lookup.
 */
export const currentPrincipal = cache(async (): Promise<Principal | null> => {
  const jar = await cookies();
  return principalForSession(getPool(), jar.get(SESSION_COOKIE)?.value);
});
