const BASE = "http://indexwright.invalid";
const FALLBACK = "/overview";

/**
 * Only same-origin dashboard paths are followed after sign-in. The value is normalised the way a
 * browser would read it before it is judged: browsers drop tabs and newlines and read "\" as "/",
 * so "/\t/evil.example" or "/\\evil.example" are "//evil.example" to them. Anything that does not
 * resolve to our own origin, or points back at sign-in or the API, falls back to the overview.
 */
export function safeNext(raw: string | string[] | null | undefined): string {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (!v || v.length > 2048 || !v.startsWith("/")) return FALLBACK;
  // Control characters never belong in a path we hand out; a browser would silently strip some.
  if (/[\u0000-\u001f\u007f\\]/.test(v)) return FALLBACK;
  let u: URL;
  try {
    u = new URL(v, BASE);
  } catch {
    return FALLBACK;
  }
  if (u.origin !== BASE || u.username || u.password) return FALLBACK;
  const path = u.pathname;
  if (path.startsWith("//") || path === "/signin" || path.startsWith("/signin/") || path.startsWith("/api/"))
    return FALLBACK;
  return `${path}${u.search}${u.hash}`;
}
