import "server-only";
import { cookies } from "next/headers";
import { SESSION_COOKIE, decodeSession } from "./session";
import type { Principal } from "./principal";

/** The signed-in person for server components, or null. */
export async function currentPrincipal(): Promise<Principal | null> {
  const jar = await cookies();
  return decodeSession(jar.get(SESSION_COOKIE)?.value);
}
