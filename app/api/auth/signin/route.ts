import { publicHandler, json, readJson } from "@/lib/http/handler";
import { signInBody } from "@/lib/auth/schemas";
import { DomainError } from "@/lib/domain/errors";
import { assertSameOrigin } from "@/lib/http/origin";
import { identityForToken } from "@/lib/auth/authenticate";
import { identityForPassword } from "@/lib/auth/users";
import { signInThrottle } from "@/lib/auth/throttle";
import { clientAddressOf } from "@/lib/http/client-address";
import { openSession, sessionCookie } from "@/lib/auth/session";
import { db } from "@/lib/server";

export const POST = publicHandler(async (req) => {
  // Scripts and the CLI send no Origin; a browser on another site does.
  assertSameOrigin(req, false);
  const b = signInBody.parse(await readJson(req, 10_000));
  // The web server (cli/web.ts) leaves only the address it trusts in X-Forwarded-For.
  const throttle = signInThrottle(db());
  const admission = await throttle.admit(clientAddressOf(req), "email" in b ? b.email : null);
  if (!admission.allowed) {
    // Refused before any password or token is looked at, so waiting out the delay is the only way on.
    const s = admission.retryAfterSeconds;
    return json(
      {
        error: {
          code: "TOO_MANY_ATTEMPTS",
          message: `too many failed sign-ins; try again in ${s} second${s === 1 ? "" : "s"}`,
        },
      },
      429,
      { "retry-after": String(s) },
    );
  }
  const identity =
    "token" in b
      ? await identityForToken(b.token.trim())
      : await identityForPassword(db(), b.email, b.password, admission.ticket.address);
  if (!identity) {
    await throttle.failed(admission.ticket);
    throw new DomainError("UNAUTHORIZED", "token" in b ? "that token is not valid" : "wrong email or password");
  }
  await throttle.succeeded(admission.ticket);
  const session = await openSession(
    db(),
    identity.owner,
    "token" in b ? "token" : "password",
    req.headers.get("user-agent"),
  );
  return json({ ok: true, role: identity.principal.role, subject: identity.principal.subject }, 200, {
    "set-cookie": sessionCookie(session, req),
  });
});

export * from "@/lib/http/method-fallback";
