/** Only same-origin paths are followed after sign-in (no "//evil.example" or absolute URLs). */
export function safeNext(raw: string | string[] | null | undefined): string {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (!v || !v.startsWith("/") || v.startsWith("//") || v.startsWith("/\\") || v.startsWith("/signin") || v.startsWith("/api/")) return "/overview";
  return v;
}
