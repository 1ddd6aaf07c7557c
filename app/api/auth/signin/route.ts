import { z } from "zod";
import { handler, json, readJson } from "@/lib/http/handler";
import { ApiError } from "@/lib/http/errors";
import { principalForToken } from "@/lib/auth/authenticate";
import { encodeSession, SESSION_COOKIE, SESSION_TTL_SECONDS } from "@/lib/auth/session";

const body = z.object({ token: z.string().min(1).max(500) }).strict();

export const POST = handler(async (req) => {
  const origin = req.headers.get("origin");
  const host = req.headers.get("host");
  if (origin && host && new URL(origin).host !== host) throw new ApiError(403, "ORIGIN_MISMATCH", "cross-origin request rejected");
  const { token } = body.parse(await readJson(req, 10_000));
  const principal = await principalForToken(token.trim());
  if (!principal) throw new ApiError(401, "UNAUTHORIZED", "that token is not valid");
  const secure = new URL(req.url).protocol === "https:" ? "; Secure" : "";
  return json({ ok: true, role: principal.role, subject: principal.subject }, 200, {
    "set-cookie": `${SESSION_COOKIE}=${encodeSession(principal)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_SECONDS}${secure}`,
  });
});
