import { json } from "./handler";
import { allowHeader, routeFor } from "./routes";

/*
 * Every route file ends with `export * from "@/lib/http/method-fallback"`. A module's own exports
 * take precedence over names it re-exports with `export *`, so the methods a route defines stay
 * its own and every other method answers 405 METHOD_NOT_ALLOWED in the API's JSON error shape,
 * where the App Router would answer an empty 405 without an Allow header.
 *
 * This is done in the route modules rather than in proxy.ts because a proxy that matches a
 * request makes Next.js buffer the whole request body before the route runs (and cut it at
 * proxyClientMaxBodySize, 10 MB by default): document uploads would be truncated and the
 * handlers' streaming size limits would no longer stop an oversized body early.
 *
 * HEAD is not exported here: Next.js answers HEAD with the module's GET, which is the route's own
 * GET where it has one and the 405 below where it has not.
 */

function allowed(req: Request): string {
  const route = routeFor(new URL(req.url).pathname);
  return route ? allowHeader(route.methods) : "OPTIONS";
}

function notAllowed(req: Request): Response {
  const allow = allowed(req);
  const { pathname } = new URL(req.url);
  return json(
    {
      error: { code: "METHOD_NOT_ALLOWED", message: `${req.method} is not allowed on ${pathname} (allowed: ${allow})` },
    },
    405,
    { allow },
  );
}

export const GET = notAllowed;
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;

/** What the App Router would answer itself, but with the methods from the route table: its own list would include the 405 handlers above. */
export function OPTIONS(req: Request): Response {
  return new Response(null, { status: 204, headers: { allow: allowed(req), "cache-control": "no-store" } });
}
