import { handler, json } from "@/lib/http/handler";
import { CLEAR_SESSION_COOKIE, SESSION_COOKIE, cookieValue, endSession } from "@/lib/auth/session";
import { db } from "@/lib/server";

/** Ends the session server-side, so a copied cookie stops working too. */
export const POST = handler(async (req) => {
  await endSession(db(), cookieValue(req, SESSION_COOKIE));
  return json({ ok: true }, 200, { "set-cookie": CLEAR_SESSION_COOKIE });
});

export * from "@/lib/http/method-fallback";
