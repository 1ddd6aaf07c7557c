import type { Role } from "../domain/constants";
import type { Capability } from "../auth/principal";

// Plain data and pure functions only: proxy.ts and route modules read this, so it must stay free
// of node imports and "server-only". The rows are the authorization: a route module names its row
// in handler() (./handler.ts), which applies it before the route's code runs.
// test/api/authorization-matrix.test.ts fails when a route file on disk and this table disagree,
// and calls every row as every kind of caller.

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type RouteRule = {
  method: HttpMethod;
  /** Path under the site root; `[name]` stands for one path segment. */
  path: string;
  /** public: no credentials needed; session: any signed-in caller; role: at least `role`. */
  auth: "public" | "session" | "role";
  role?: Role;
  /**
   * none: no tenant involved; tenant-param: the `[tenant]` segment must be one of the caller's
   * tenants (403 FORBIDDEN); own-tenants: answers are filtered to the caller's tenants and ids
   * outside them are 404; fleet: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
   */
  scope: "none" | "tenant-param" | "own-tenants" | "fleet";
  /** A token holding this capability passes regardless of role (fleet scope still applies to the token's grant). */
  capability?: Capability;
  /**
   * A POST that only reads (a search: its body is the query), so its reads may go to the read
   * replica as a GET's do. What it writes (the audit of a search as other principals) goes to the primary.
   */
  reads?: true;
};

/** Whether a route's reads may go to the read replica: every GET, and the POSTs marked as reads. */
export const readsOnly = (rule: RouteRule) => rule.method === "GET" || rule.reads === true;
const reading = (rule: RouteRule): RouteRule => ({ ...rule, reads: true });

const pub = (method: HttpMethod, path: string): RouteRule => ({ method, path, auth: "public", scope: "none" });
const role = (
  method: HttpMethod,
  path: string,
  min: Role,
  scope: RouteRule["scope"],
  capability?: Capability,
): RouteRule => ({
  method,
  path,
  auth: "role",
  role: min,
  scope,
  ...(capability ? { capability } : {}),
});

const DOC = "/api/v1/tenants/[tenant]/documents/[key]";

export const ROUTES: readonly RouteRule[] = Object.freeze([
  pub("GET", "/api/health"),
  // The API's OpenAPI document: how to call it, no data; clients read it before they hold a token.
  pub("GET", "/api/openapi.json"),
  pub("POST", "/api/auth/signin"),
  // Without a session it does nothing and still answers 200.
  pub("POST", "/api/auth/signout"),
  // 404 while single sign-on is not configured.
  pub("GET", "/api/auth/oidc/start"),
  pub("GET", "/api/auth/oidc/callback"),
  // Metrics are fleet-wide: an all-tenant operator, or a token granted metrics:read.
  role("GET", "/api/metrics", "operator", "fleet", "metrics:read"),
  role("GET", "/api/v1/overview", "viewer", "own-tenants"),
  // Throughput and backlog history over a chosen range; counted over the caller's tenants.
  role("GET", "/api/v1/overview/activity", "viewer", "own-tenants"),
  role("GET", "/api/v1/workers", "viewer", "fleet"),
  role("GET", "/api/v1/tenants", "viewer", "own-tenants"),
  role("GET", "/api/v1/documents", "viewer", "own-tenants"),
  role("GET", "/api/v1/tasks", "viewer", "own-tenants"),
  // Exports stream the list with the list's own filters and tenant scoping.
  role("GET", "/api/v1/documents/export", "viewer", "own-tenants"),
  role("GET", "/api/v1/tasks/export", "viewer", "own-tenants"),
  role("GET", "/api/v1/tasks/[taskId]", "viewer", "own-tenants"),
  role("POST", "/api/v1/tasks/[taskId]/retry", "operator", "own-tenants"),
  role("POST", "/api/v1/tasks/[taskId]/force-done", "operator", "own-tenants"),
  role("POST", "/api/v1/tasks/retry", "operator", "own-tenants"),
  role("POST", "/api/v1/tasks/[taskId]/cancel", "operator", "own-tenants"),
  // Pauses of the caller's tenants and every task-type pause; a task-type pause (fleet-wide) is
  // made or lifted by an all-tenant operator only (403 FLEET_SCOPE_REQUIRED, checked on the body).
  role("GET", "/api/v1/pauses", "viewer", "own-tenants"),
  role("POST", "/api/v1/pauses", "operator", "own-tenants"),
  role("DELETE", "/api/v1/pauses/[id]", "operator", "own-tenants"),
  role("GET", "/api/v1/audit", "operator", "own-tenants"),
  role("GET", DOC, "viewer", "tenant-param"),
  // The chunks of one index version; text only where the version's ACL lets the caller read it.
  role("GET", `${DOC}/chunks`, "viewer", "tenant-param"),
  role("DELETE", DOC, "maintainer", "tenant-param"),
  role("POST", `${DOC}/versions`, "maintainer", "tenant-param"),
  role("POST", `${DOC}/reindex`, "maintainer", "tenant-param"),
  role("POST", `${DOC}/rename`, "maintainer", "tenant-param"),
  role("POST", `${DOC}/rollback`, "operator", "tenant-param"),
  role("POST", `${DOC}/unpin`, "operator", "tenant-param"),
  reading(role("POST", "/api/v1/tenants/[tenant]/search", "viewer", "tenant-param")),
  role("GET", "/api/v1/admin/users", "admin", "own-tenants"),
  role("POST", "/api/v1/admin/users", "admin", "own-tenants"),
  role("PATCH", "/api/v1/admin/users/[id]", "admin", "own-tenants"),
  role("GET", "/api/v1/admin/tokens", "admin", "own-tenants"),
  role("POST", "/api/v1/admin/tokens", "admin", "own-tenants"),
  role("DELETE", "/api/v1/admin/tokens/[id]", "admin", "own-tenants"),
  // The bootstrap token is every tenant's admin: replaced or revoked by an all-tenant admin only.
  role("POST", "/api/v1/admin/bootstrap-token/rotate", "admin", "fleet"),
  role("DELETE", "/api/v1/admin/bootstrap-token", "admin", "fleet"),
  // Webhook endpoints belong to one tenant; a tenant-limited admin manages its tenants' only.
  // Index spaces are fleet resources (a provider reached with the fleet's key): operators read them
  // to choose a migration's target; creating, changing and retiring one is an all-tenant admin's.
  role("GET", "/api/v1/admin/embedding-spaces", "operator", "none"),
  role("POST", "/api/v1/admin/embedding-spaces", "admin", "fleet"),
  role("PATCH", "/api/v1/admin/embedding-spaces/[name]", "admin", "fleet"),
  role("POST", "/api/v1/admin/embedding-spaces/[name]/retire", "admin", "fleet"),
  // One call that starts a migration for every tenant on a space: every tenant, so fleet-wide.
  role("POST", "/api/v1/admin/migrations", "operator", "fleet"),
  role("GET", "/api/v1/tenants/[tenant]/migrations", "viewer", "tenant-param"),
  role("POST", "/api/v1/tenants/[tenant]/migrations", "operator", "tenant-param"),
  role("GET", "/api/v1/tenants/[tenant]/migrations/[id]", "viewer", "tenant-param"),
  role("POST", "/api/v1/tenants/[tenant]/migrations/[id]/switch", "operator", "tenant-param"),
  role("POST", "/api/v1/tenants/[tenant]/migrations/[id]/switch-back", "operator", "tenant-param"),
  role("POST", "/api/v1/tenants/[tenant]/migrations/[id]/abort", "operator", "tenant-param"),
  role("POST", "/api/v1/tenants/[tenant]/migrations/[id]/finish", "operator", "tenant-param"),
  // Retrieval evaluation (docs/evaluation.md#trust): the golden set is content curation (maintainers);
  // the history's figures are for every reader of the tenant; a run's per-query results are for
  // maintainers, each query shown only to a reader who may search as its principals. Naming other
  // principals in a set, a run or a why needs what searching as them needs (operator, audited).
  role("GET", "/api/v1/tenants/[tenant]/evaluation-set", "maintainer", "tenant-param"),
  role("PUT", "/api/v1/tenants/[tenant]/evaluation-set", "maintainer", "tenant-param"),
  role("GET", "/api/v1/tenants/[tenant]/evaluations", "viewer", "tenant-param"),
  role("POST", "/api/v1/tenants/[tenant]/evaluations", "maintainer", "tenant-param"),
  role("GET", "/api/v1/tenants/[tenant]/evaluations/[id]", "maintainer", "tenant-param"),
  // The freshness SLO (docs/operations.md#freshness-slo): every reader of a tenant sees its figures;
  // its objective is a promise made for the tenant, so an admin of the tenant sets it (audited).
  role("GET", "/api/v1/slo", "viewer", "own-tenants"),
  role("GET", "/api/v1/tenants/[tenant]/slo", "viewer", "tenant-param"),
  role("PUT", "/api/v1/tenants/[tenant]/slo", "admin", "tenant-param"),
  // "Why isn't this document in my results?": a search, diagnosed; as search, for every reader.
  role("GET", `${DOC}/why`, "viewer", "tenant-param"),
  reading(role("POST", `${DOC}/why`, "viewer", "tenant-param")),
  role("GET", "/api/v1/admin/webhooks", "admin", "own-tenants"),
  role("POST", "/api/v1/admin/webhooks", "admin", "own-tenants"),
  role("PATCH", "/api/v1/admin/webhooks/[id]", "admin", "own-tenants"),
  role("DELETE", "/api/v1/admin/webhooks/[id]", "admin", "own-tenants"),
  role("POST", "/api/v1/admin/webhooks/[id]/rotate-secret", "admin", "own-tenants"),
  role("GET", "/api/v1/admin/webhooks/[id]/deliveries", "admin", "own-tenants"),
  role("POST", "/api/v1/admin/webhooks/[id]/deliveries/[deliveryId]/redeliver", "admin", "own-tenants"),
]);

const segments = (path: string) => path.split("/").filter(Boolean);
const isParam = (segment: string) => /^\[[^\]]+\]$/.test(segment);

/**
 * The route pattern a request path is served by, the way the App Router picks it: segment by
 * segment, a literal segment wins over a `[param]` one (so /api/v1/tasks/retry is its own route,
 * not a task id). Null when no route serves the path.
 */
export function routeFor(pathname: string): { path: string; methods: HttpMethod[] } | null {
  const want = segments(pathname);
  let best: { path: string; rank: string } | null = null;
  for (const path of new Set(ROUTES.map((r) => r.path))) {
    const have = segments(path);
    if (have.length !== want.length || !have.every((s, i) => isParam(s) || s === want[i])) continue;
    // Literal segments rank "1", params "0": the lexically greatest rank is the most specific route.
    const rank = have.map((s) => (isParam(s) ? "0" : "1")).join("");
    if (!best || rank > best.rank) best = { path, rank };
  }
  if (!best) return null;
  const chosen = best.path;
  return { path: chosen, methods: ROUTES.filter((r) => r.path === chosen).map((r) => r.method) };
}

/** The row a route module serves, named as "METHOD /path"; an unknown name fails when the module loads. */
export function routeRule(name: string): RouteRule {
  const rule = ROUTES.find((r) => `${r.method} ${r.path}` === name);
  if (!rule) throw new Error(`${name}: no such row in lib/http/routes.ts`);
  return rule;
}

/** The Allow header for a route: its methods, HEAD wherever GET is served, and OPTIONS. */
export function allowHeader(methods: readonly HttpMethod[]): string {
  const all = new Set<string>([...methods, "OPTIONS"]);
  if (all.has("GET")) all.add("HEAD");
  return [...all].sort().join(", ");
}
