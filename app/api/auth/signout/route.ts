import { publicHandler, json } from "@/lib/http/handler";
import { clearSessionCookie, endSession, sessionOf } from "@/lib/auth/session";
import { assertSameOrigin } from "@/lib/http/origin";
import { db } from "@/lib/server";

/**
 * Ends the session server-side, so a copied cookie stops working too. A request from another
 * site's page (browsers send its Origin) is refused: it could otherwise sign people out at will.
 * Without an Origin the caller is not a browser on another site, and may sign out.
 */
export const POST = publicHandler(async (req) => {
  const session = sessionOf(req);
  if (session) assertSameOrigin(req, false);
  await endSession(db(), session);
  return json({ ok: true }, 200, { "set-cookie": clearSessionCookie(req) });
});

export * from "@/lib/http/method-fallback";
