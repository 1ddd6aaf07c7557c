import { createHmac, timingSafeEqual } from "node:crypto";
import type { Principal } from "./principal";
import { ROLES, type Role } from "../domain/constants";

export const SESSION_COOKIE = "iw_session";
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

function secret(): string {
  const s = process.env.INDEXWRIGHT_SESSION_SECRET ?? process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN;
  if (!s) throw new Error("INDEXWRIGHT_SESSION_SECRET is not set");
  return s;
}

function sign(payload: string): string {
  return createHmac("sha256", secret()).update(payload).digest("base64url");
}

/** A stateless signed session: base64url(json).signature. */
export function encodeSession(p: Principal, now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ ...p, exp: Math.floor(now / 1000) + SESSION_TTL_SECONDS })).toString("base64url");
  return `${body}.${sign(body)}`;
}

export function decodeSession(value: string | undefined, now = Date.now()): Principal | null {
  if (!value) return null;
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return null;
  const body = value.slice(0, dot);
  const sig = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(body));
  if (sig.length !== expected.length || !timingSafeEqual(sig, expected)) return null;
  try {
    const data = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Principal & { exp: number };
    if (typeof data.exp !== "number" || data.exp * 1000 < now) return null;
    if (!ROLES.includes(data.role as Role)) return null;
    return { subject: data.subject, role: data.role, tenants: data.tenants ?? null };
  } catch {
    return null;
  }
}
