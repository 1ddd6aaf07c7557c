import { DomainError } from "../domain/errors";
import { setting } from "../config";

// What the browser addressed: behind a reverse proxy the request reaches us as http://internal,
// and the proxy's X-Forwarded-* headers say what the browser used.

export function requestHost(req: Request): string {
  return req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? new URL(req.url).host;
}

function forwardedProto(req: Request): string | undefined {
  return req.headers.get("x-forwarded-proto")?.split(",")[0].trim() || undefined;
}

export function publicOrigin(req: Request): string {
  return `${forwardedProto(req) ?? new URL(req.url).protocol.replace(/:$/, "")}://${requestHost(req)}`;
}

/** Whether cookies must be Secure: TLS here, at the proxy, or in the configured public URL. */
export function isHttps(req: Request): boolean {
  return (
    new URL(req.url).protocol === "https:" ||
    forwardedProto(req) === "https" ||
    (setting("INDEXWRIGHT_PUBLIC_URL") ?? "").startsWith("https:")
  );
}

/**
 * Cookie-carried writes must come from our own pages (CSRF). `required`: a request without an
 * Origin header is refused too; otherwise only a foreign Origin is.
 */
export function assertSameOrigin(req: Request, required: boolean): void {
  const origin = req.headers.get("origin");
  if (!origin && !required) return;
  if (!origin || URL.parse(origin)?.host !== requestHost(req))
    throw new DomainError("ORIGIN_MISMATCH", "cross-origin request rejected");
}
