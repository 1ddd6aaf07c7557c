import "server-only";
import { cookies, headers } from "next/headers";
import { cache } from "react";
import { getPool } from "../db/pool";
import { principalForSession, sessionCookieName } from "./session";
import { isHttps } from "../http/origin";
import type { Principal } from "./principal";

/**
 * The signed-in person for server components, or null. Once per request: the layout and the page
 * both ask, and each ask is a session lookup.
 */
export const currentPrincipal = cache(async (): Promise<Principal | null> => {
  const jar = await cookies();
  // The same scheme test as API requests (lib/http/origin.ts), from this request's headers.
  const https = isHttps(new Request("http://page.internal/", { headers: await headers() }));
  return principalForSession(getPool(), jar.get(sessionCookieName(https))?.value);
});
