import { z } from "zod";
import { handler, json, readJson } from "@/lib/http/handler";
import { ApiError } from "@/lib/http/errors";
import { assertSameOrigin } from "@/lib/http/origin";
import { identityForToken } from "@/lib/auth/authenticate";
import { identityForPassword, tooManyFailures, recordFailure } from "@/lib/auth/users";
import { openSession, sessionCookie } from "@/lib/auth/session";
import { db } from "@/lib/server";

const body = z.union([
  z.object({ token: z.string().min(1).max(500) }).strict(),
  z.object({ email: z.string().trim().email().max(320), password: z.string().min(1).max(500) }).strict(),
]);

export const POST = handler(async (req) => {
  // Scripts and the CLI send no Origin; a browser on another site does.
  assertSameOrigin(req, false);
  const b = body.parse(await readJson(req, 10_000));
  const client = req.headers.get("x-forwarded-for")?.split(",")[0].trim() ?? "local";
  const keys = "email" in b ? [`email:${b.email.toLowerCase()}`, `client:${client}`] : [`client:${client}`];
  if (tooManyFailures(keys)) throw new ApiError(429, "TOO_MANY_ATTEMPTS", "too many failed sign-ins; wait a few minutes");
  const identity = "token" in b ? await identityForToken(b.token.trim()) : await identityForPassword(db(), b.email, b.password);
  if (!identity) {
    recordFailure(keys);
    throw new ApiError(401, "UNAUTHORIZED", "token" in b ? "that token is not valid" : "wrong email or password");
  }
  const session = await openSession(db(), identity.owner, "token" in b ? "token" : "password", req.headers.get("user-agent"));
  return json({ ok: true, role: identity.principal.role, subject: identity.principal.subject }, 200, { "set-cookie": sessionCookie(session, req) });
});

export * from "@/lib/http/method-fallback";
