import { json } from "@/lib/http/handler";
import { SESSION_COOKIE } from "@/lib/auth/session";

export async function POST(): Promise<Response> {
  return json({ ok: true }, 200, { "set-cookie": `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` });
}
