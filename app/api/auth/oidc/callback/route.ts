import { publicHandler } from "@/lib/http/handler";
import { notFound } from "@/lib/domain/errors";
import { CLEAR_OIDC_COOKIE, OIDC_COOKIE, OidcSignInError, finishSignIn, userForClaims } from "@/lib/auth/oidc";
import { oidcSettings } from "@/lib/config";
import { cookieValue, openSession, sessionCookie } from "@/lib/auth/session";
import { db } from "@/lib/server";
import { log } from "@/lib/log";

function redirect(location: string, cookies: string[]): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

/** The identity provider's redirect back: verify, find or create the user, open a session. */
export const GET = publicHandler(async (req) => {
  const settings = oidcSettings();
  if (!settings) throw notFound("single sign-on");
  try {
    const { claims, next } = await finishSignIn(settings, req, cookieValue(req, OIDC_COOKIE));
    const user = await userForClaims(db(), settings, claims);
    const session = await openSession(db(), user.owner, "oidc", req.headers.get("user-agent"));
    log.info({ email: user.email, created: user.created }, "signed in through OIDC");
    return redirect(next, [CLEAR_OIDC_COOKIE, sessionCookie(session, req)]);
  } catch (err) {
    // A refusal is an expected outcome (its reason is enough); anything else keeps its stack.
    const code = err instanceof OidcSignInError ? err.code : "OIDC_PROVIDER_ERROR";
    log.warn(err instanceof OidcSignInError ? { code, reason: err.message } : { err, code }, "OIDC sign-in refused");
    return redirect(`/signin?error=${code}`, [CLEAR_OIDC_COOKIE]);
  }
});

export * from "@/lib/http/method-fallback";
