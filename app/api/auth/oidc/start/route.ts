import { publicHandler } from "@/lib/http/handler";
import { notFound } from "@/lib/domain/errors";
import { beginSignIn } from "@/lib/auth/oidc";
import { oidcSettings } from "@/lib/config";
import { safeNext } from "@/lib/auth/next-path";
import { log } from "@/lib/log";

const redirect = (location: string, cookie?: string) =>
  new Response(null, {
    status: 303,
    headers: { location, "cache-control": "no-store", ...(cookie ? { "set-cookie": cookie } : {}) },
  });

/** Sends the browser to the identity provider; the sign-in page links here. */
export const GET = publicHandler(async (req) => {
  const settings = oidcSettings();
  if (!settings) throw notFound("single sign-on");
  const next = safeNext(new URL(req.url).searchParams.get("next"));
  try {
    const { location, cookie } = await beginSignIn(settings, req, next);
    return redirect(location, cookie);
  } catch (err) {
    log.warn({ err, issuer: settings.issuer }, "OIDC discovery failed");
    return redirect(`/signin?error=OIDC_UNAVAILABLE&next=${encodeURIComponent(next)}`);
  }
});

export * from "@/lib/http/method-fallback";
