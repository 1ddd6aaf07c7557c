// Who the signed-in caller is, as the dashboard shows it: tenant grants, the ACL principals a search
// runs as, and which widening powers the UI offers. The server decides every one of these again;
// the UI only avoids offering what would be refused, and explains refusals in words.
import { z } from "zod";
import { TENANT_PATTERN, type Role } from "@/lib/domain/constants";
import type { Schemas } from "../client";
import { api, parse } from "./api";
import { roleAtLeast } from "./roles";
import { overviewSchema, type SearchInput } from "./schemas";

export const CAPABILITIES = ["search:principals", "metrics:read"] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** The stored grant meaning every tenant, including ones created later. It stands alone in its list. */
export const ALL_TENANTS = "*";

/** The parts of the signed-in principal these rules read. */
export type Caller = {
  kind: "person" | "application";
  role: Role;
  /** null = all tenants. */
  tenants: string[] | null;
  principals: string[];
  capabilities: string[];
};

// ---------- tenants ----------

/** "all tenants" · "no tenants" · "tenant acme" · "tenants acme, globex": for the top bar and notes. */
export function describeTenants(tenants: readonly string[] | null): string {
  if (tenants === null) return "all tenants";
  if (tenants.length === 0) return "no tenants";
  return `${tenants.length === 1 ? "tenant" : "tenants"} ${tenants.join(", ")}`;
}

/** A stored grant (["*"], a list, or []) as a principal's tenants (null = all). */
export function grantToTenants(grant: readonly string[]): string[] | null {
  return grant.includes(ALL_TENANTS) ? null : [...grant];
}

/** Tenants both grants allow (null = all). */
export function intersectTenants(a: readonly string[] | null, b: readonly string[] | null): string[] | null {
  if (a === null) return b === null ? null : [...b];
  if (b === null) return [...a];
  return a.filter((t) => b.includes(t));
}

/**
 * What a tenant picker holds. `ceiling` (outside this type) is what the granter may hand out:
 * null = every tenant, so "All tenants" and free typing are offered; a list = only those, as checkboxes.
 */
export type TenantGrantDraft = { all: boolean; text: string; picked: string[] };

export function emptyGrant(): TenantGrantDraft {
  return { all: false, text: "", picked: [] };
}

/** A picker pre-filled with an existing grant, shown within `ceiling`. */
export function draftFromGrant(grant: readonly string[], ceiling: readonly string[] | null): TenantGrantDraft {
  if (grant.includes(ALL_TENANTS))
    return { all: ceiling === null, text: "", picked: ceiling === null ? [] : [...ceiling] };
  return ceiling === null
    ? { all: false, text: grant.join(", "), picked: [] }
    : { all: false, text: "", picked: grant.filter((t) => ceiling.includes(t)) };
}

/** "acme, globex" → ["acme","globex"]; the problem names the first id that cannot be a tenant. */
export function parseTenantList(text: string): { tenants: string[]; problem: string | null } {
  const tenants = [
    ...new Set(
      text
        .split(/[,\s]+/)
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
  if (tenants.includes(ALL_TENANTS))
    return { tenants, problem: "Use the “All tenants” box for every tenant, not “*”." };
  const bad = tenants.find((t) => !TENANT_PATTERN.test(t));
  if (bad) return { tenants, problem: `“${bad}” is not a tenant id (lower-case letters, digits, “.”, “_” and “-”).` };
  if (tenants.length > 100) return { tenants, problem: "List at most 100 tenants." };
  return { tenants, problem: null };
}

/** The grant to send (["*"] or names, never empty), or why there is none yet. */
export function resolveGrant(
  draft: TenantGrantDraft,
  ceiling: readonly string[] | null,
): { tenants: string[]; problem: string | null } {
  if (ceiling === null) {
    if (draft.all) return { tenants: [ALL_TENANTS], problem: null };
    const parsed = parseTenantList(draft.text);
    if (parsed.problem) return parsed;
    if (parsed.tenants.length === 0)
      return { tenants: [], problem: "Tick “All tenants”, or name at least one tenant." };
    return parsed;
  }
  const tenants = draft.picked.filter((t) => ceiling.includes(t));
  if (ceiling.length === 0) return { tenants: [], problem: "There is no tenant you may grant." };
  if (tenants.length === 0) return { tenants, problem: "Choose at least one tenant." };
  return { tenants, problem: null };
}

/** Same grant, whatever the order. */
export function sameGrant(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join("\n") === [...b].sort().join("\n");
}

// ---------- groups ----------

/** Group names the API accepts (users.groups). */
export const GROUP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/** "hr, finance" → ["hr","finance"]; a leading "group:" is dropped, since the field holds names. */
export function parseGroups(text: string): { groups: string[]; problem: string | null } {
  const groups = [
    ...new Set(
      text
        .split(/[,\n]/)
        .map((g) => g.trim().replace(/^group:/, ""))
        .filter(Boolean),
    ),
  ];
  const bad = groups.find((g) => !GROUP_PATTERN.test(g));
  if (bad)
    return {
      groups,
      problem: `“${bad}” is not a group name: start with a letter or digit, then up to 127 letters, digits or “. _ : @ / -” (no spaces).`,
    };
  if (groups.length > 100) return { groups, problem: "List at most 100 groups." };
  return { groups, problem: null };
}

// ---------- search ----------

/** Whether the caller may name principals other than its own (person operators are audited for it). */
export function mayNamePrincipals(c: Caller): boolean {
  if (c.kind === "application") return c.capabilities.includes("search:principals");
  return roleAtLeast(c.role, "operator");
}

/** Whether searching as `named` would be recorded in the audit log (a person naming someone else). */
export function searchIsAudited(c: Caller, named: readonly string[]): boolean {
  return c.kind === "person" && named.length > 0 && !named.every((p) => c.principals.includes(p));
}

/** Principal strings look like "user:<email>" or "group:<name>"; anything else is likely a typo. */
export function principalProblem(list: readonly string[]): string | null {
  const bad = list.find((p) => !/^(user|group):\S+$/.test(p));
  return bad ? `“${bad}” should look like user:<email> or group:<name>.` : null;
}

export type SearchHit = Schemas["SearchHit"];
/** searchedAs and space are null before any search ran; space is the index space that answered. */
export type SearchAnswer = { hits: SearchHit[]; searchedAs: string[] | null; space: string | null };

/** One search, and the ACL principals the server actually searched as. */
export async function searchWithPrincipals(input: SearchInput, signal?: AbortSignal): Promise<SearchAnswer> {
  const body = {
    query: input.query,
    topK: input.topK,
    ...(input.principals.length > 0 ? { principals: input.principals } : {}),
    ...(input.mode ? { mode: input.mode } : {}),
  };
  return (
    await api.POST("/api/v1/tenants/{tenant}/search", { params: { path: { tenant: input.tenant } }, body, signal })
  ).data!;
}

// ---------- overview ----------

export const scopedOverviewSchema = overviewSchema.extend({
  /** "tenants": counted over the caller's tenants only, with no workers, history or reconciler. */
  scope: z
    .enum(["fleet", "tenants"])
    .optional()
    .transform((v) => v ?? "fleet"),
});
export type ScopedOverview = z.infer<typeof scopedOverviewSchema>;

export async function fetchScopedOverview(signal?: AbortSignal): Promise<ScopedOverview> {
  return parse(scopedOverviewSchema, (await api.GET("/api/v1/overview", { signal })).data, "overview");
}
