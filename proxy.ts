import { NextResponse, type NextRequest } from "next/server";

/**
 * Hands dashboard pages the path they were asked for, so a signed-out visitor (or one whose session
 * an admin ended) is sent to sign-in and brought back to the same view, filters included. The
 * header is always overwritten here, so a client cannot choose it.
 */
export function proxy(req: NextRequest) {
  const headers = new Headers(req.headers);
  headers.set("x-iw-path", req.nextUrl.pathname + req.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

// API routes stay outside the proxy: Next.js buffers the whole body of every request a proxy
// matches before the route runs (cut at proxyClientMaxBodySize), which would truncate document
// uploads and defeat the handlers' streaming size limits. The API answers unknown paths and
// methods itself (app/api/[...rest]/route.ts, lib/http/method-fallback.ts).
// Icons and the manifest (public/) render no page, so they need no x-iw-path.
export const config = {
  matcher: [
    "/((?!api/|_next/|signin|favicon\\.ico|icon\\.svg|icon-\\d+\\.png|apple-touch-icon\\.png|manifest\\.webmanifest).*)",
  ],
};
