import { ping } from "@/lib/db/repository";
import { json } from "@/lib/http/handler";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  try {
    await ping();
    return json({ ok: true, database: "ok" });
  } catch (err) {
    // Anyone may ask, so the driver's message (host, port, user, why the login failed) goes to the
    // server log only.
    log.error({ err }, "health check: the database did not answer");
    return json(
      {
        ok: false,
        database: "unreachable",
        error: { code: "DATABASE_UNAVAILABLE", message: "the database did not answer; the server log has the reason" },
      },
      503,
    );
  }
}

export * from "@/lib/http/method-fallback";
