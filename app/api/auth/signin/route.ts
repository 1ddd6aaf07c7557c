import { z } from "zod";
import { handler, json, readJson } from "@/lib/http/handler";
import { ApiError } from "@/lib/http/errors";
import { principalForToken } from "@/lib/auth/authenticate";
import { principalForPassword, tooManyFailures, recordFailure } from "@/lib/auth/users";
import { encodeSession, SESSION_COOKIE, SESSION_TTL_SECONDS } from "@/lib/auth/session";
import { db } from "@/lib/server";

const body = z.union([
  z.object({ token: z.string().min(1).max(500) }).strict(),
  z.object({ email: z.string().trim().email().max(320), password: z.string().min(1).max(500) }).strict(),
]);

export const POST = handler(async (req) => {
  const origin = req.headers.get("origin");
  const host = req.headers.get("host");
  if (origin && host && new URL(origin).host !== host) throw new ApiError(403, "ORIGIN_MISMATCH", "cross-origin request rejected");
  const b = body.parse(await readJson(req, 10_000));
  const client = req.headers.get("x-forwarded-for")?.split(",")[0].trim() ?? "local";
  const keys = "email" in b ? [`email:${b.email.toLowerCase()}`, `client:${client}`] : [`client:${client}`];
  if (tooManyFailures(keys)) throw new ApiError(429, "TOO_MANY_ATTEMPTS", "too many failed sign-ins; wait a few minutes");
  const principal = "token" in b ? await principalForToken(b.token.trim()) : await principalForPassword(db(), b.email, b.password);
  if (!principal) {
    recordFailure(keys);
    throw new ApiError(401, "UNAUTHORIZED", "token" in b ? "that token is not valid" : "wrong email or password");
  }
  const secure = new URL(req.url).protocol === "https:" ? "; Secure" : "";
  return json({ ok: true, role: principal.role, subject: principal.subject }, 200, {
    "set-cookie": `${SESSION_COOKIE}=${encodeSession(principal)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_SECONDS}${secure}`,
  });
});
