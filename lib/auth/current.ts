import "server-only";
import { cookies } from "next/headers";
import { getPool } from "../db/pool";
import { SESSION_COOKIE, principalForSession } from "./session";
import type { Principal } from "./principal";

/** The signed-in person for server components, or null. */
export async function currentPrincipal(): Promise<Principal | null> {
  const jar = await cookies();
  return principalForSession(getPool(), jar.get(SESSION_COOKIE)?.value);
}
