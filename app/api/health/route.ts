import { ping } from "@/lib/db/repository";
import { json } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  try {
    await ping();
    return json({ ok: true, database: "ok" });
  } catch (err) {
    return json({ ok: false, database: "unreachable", error: { code: "DATABASE_UNAVAILABLE", message: (err as Error).message } }, 503);
  }
}

export * from "@/lib/http/method-fallback";
