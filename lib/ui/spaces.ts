// Index spaces and migrations in the dashboard (docs/decisions/039-index-spaces.md): answer and
// body types from the typed client (drawn from lib/spaces/schemas.ts through the OpenAPI document),
// fetchers, query keys, React Query hooks and the small rules the pages share. Only import from
// client components.
import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import type { paths } from "../client";
import { api, isApiError } from "./api";
import { invalidateOperations, queryKeys, shouldRetry } from "./hooks";

// ---------- types (typed client) ----------

type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;
type BodyOf<B> = NonNullable<B> extends { content: { "application/json": infer J } } ? J : never;

export type SpaceView = JsonOf<paths["/api/v1/admin/embedding-spaces"]["get"]["responses"][200]>["items"][number];
export type MigrationView = JsonOf<paths["/api/v1/tenants/{tenant}/migrations/{id}"]["get"]["responses"][200]>;
export type MigrationState = MigrationView["state"];
export type SpaceRef = MigrationView["from"];
export type NewSpaceInput = BodyOf<paths["/api/v1/admin/embedding-spaces"]["post"]["requestBody"]>;
export type SpacePatch = BodyOf<paths["/api/v1/admin/embedding-spaces/{name}"]["patch"]["requestBody"]>;
export type NewMigrationInput = BodyOf<paths["/api/v1/tenants/{tenant}/migrations"]["post"]["requestBody"]>;
export type MigrationAction = "switch" | "switch-back" | "abort" | "finish";

/** Open migrations: their shadow space follows every publish (lib/spaces/types.ts OPEN_MIGRATION_STATES). */
export const OPEN_MIGRATION_STATES: readonly MigrationState[] = ["BUILDING", "READY", "SWITCHED"];

export const isOpenMigration = (m: Pick<MigrationView, "state">): boolean => OPEN_MIGRATION_STATES.includes(m.state);

/** The candidate is being built or waits for the switch: the page follows it closely. */
export const isBuildingMigration = (m: Pick<MigrationView, "state">): boolean =>
  m.state === "BUILDING" || m.state === "READY";

/** Which actions each state allows (the server checks again; INVALID_STATE otherwise). */
export const MIGRATION_ACTIONS: Record<MigrationState, readonly MigrationAction[]> = {
  BUILDING: ["switch", "abort"],
  READY: ["switch", "abort"],
  SWITCHED: ["switch-back", "finish"],
  SWITCHED_BACK: [],
  ABORTED: [],
  FINISHED: [],
};

export const MIGRATION_STATE_LABEL: Record<MigrationState, string> = {
  BUILDING: "Building",
  READY: "Ready to switch",
  SWITCHED: "Switched",
  SWITCHED_BACK: "Switched back",
  ABORTED: "Aborted",
  FINISHED: "Finished",
};

export const MIGRATION_STATE_TONE: Record<MigrationState, "info" | "ok" | "warn" | "muted" | "neutral"> = {
  BUILDING: "info",
  READY: "ok",
  SWITCHED: "warn",
  SWITCHED_BACK: "muted",
  ABORTED: "muted",
  FINISHED: "neutral",
};

/** "text-embedding-3-small · 1536 dimensions": a space as a line, where only a reference is known. */
export function describeSpace(s: { model: string; dimensions: number }): string {
  return `${s.model} · ${s.dimensions} dimensions`;
}

/**
 * The space search reads in a tenant: the newest migration knows it; a tenant that never migrated
 * is on the space new tenants start on (the default).
 */
export function activeSpaceOf(
  migrations: MigrationView[] | undefined,
  spaces: SpaceView[] | undefined,
): { name: string | null; fromDefault: boolean } {
  const newest = migrations?.[0];
  if (newest) return { name: newest.active, fromDefault: false };
  return { name: spaces?.find((s) => s.isDefault)?.name ?? null, fromDefault: true };
}

/** The counts a MIGRATION_NOT_READY refusal carries (coverage: built of total, and how many failed verification). */
export type NotReadyCounts = { total: number; built: number; unverified: number };

export function notReadyCounts(error: unknown): NotReadyCounts | null {
  if (!isApiError(error) || error.code !== "MIGRATION_NOT_READY") return null;
  const d = error.details;
  if (!d || typeof d !== "object") return null;
  const { total, built, unverified } = d as Record<string, unknown>;
  if (typeof total !== "number" || typeof built !== "number") return null;
  return { total, built, unverified: typeof unverified === "number" ? unverified : 0 };
}

/** The field of the create form a refusal of the probe call belongs to (the server's message says what failed). */
export type SpaceField =
  | "name"
  | "provider"
  | "model"
  | "dimensions"
  | "baseUrl"
  | "apiKeyEnv"
  | "targetChars"
  | "textsPerMinute"
  | "pricePerMillionTokens";

export function spaceErrorField(error: unknown): { field: SpaceField; message: string } | null {
  if (!isApiError(error)) return null;
  const m = error.message;
  switch (error.code) {
    case "SPACE_NAME_TAKEN":
      return { field: "name", message: m };
    case "SPACE_KEY_MISSING":
      return { field: "apiKeyEnv", message: m };
    case "SPACE_UNREACHABLE":
      return { field: "baseUrl", message: m };
    case "SPACE_DIMENSIONS_MISMATCH":
      return { field: "dimensions", message: m };
    case "VALIDATION_FAILED": {
      const known: Record<string, SpaceField> = {
        name: "name",
        provider: "provider",
        model: "model",
        dimensions: "dimensions",
        baseUrl: "baseUrl",
        apiKeyEnv: "apiKeyEnv",
        "chunker.targetChars": "targetChars",
        textsPerMinute: "textsPerMinute",
        pricePerMillionTokens: "pricePerMillionTokens",
      };
      for (const [k, field] of Object.entries(known)) {
        const text = error.fieldErrors[k];
        if (text) return { field, message: text };
      }
      if (/baseUrl and apiKeyEnv/.test(m)) return { field: "baseUrl", message: m };
      return null;
    }
    default:
      return null;
  }
}

// ---------- fetchers ----------

export async function fetchSpaces(signal?: AbortSignal): Promise<SpaceView[]> {
  return (await api.GET("/api/v1/admin/embedding-spaces", { signal })).data!.items;
}

export async function createSpace(body: NewSpaceInput): Promise<SpaceView> {
  return (await api.POST("/api/v1/admin/embedding-spaces", { body })).data!;
}

export async function updateSpace(name: string, patch: SpacePatch): Promise<SpaceView> {
  return (await api.PATCH("/api/v1/admin/embedding-spaces/{name}", { params: { path: { name } }, body: patch })).data!;
}

export async function retireSpace(name: string, reason?: string): Promise<SpaceView> {
  const body = reason && reason.trim() ? { reason: reason.trim() } : {};
  return (await api.POST("/api/v1/admin/embedding-spaces/{name}/retire", { params: { path: { name } }, body })).data!;
}

export async function fetchMigrations(tenant: string, signal?: AbortSignal): Promise<MigrationView[]> {
  return (await api.GET("/api/v1/tenants/{tenant}/migrations", { params: { path: { tenant } }, signal })).data!.items;
}

export async function fetchMigration(tenant: string, id: string, signal?: AbortSignal): Promise<MigrationView> {
  return (await api.GET("/api/v1/tenants/{tenant}/migrations/{id}", { params: { path: { tenant, id } }, signal }))
    .data!;
}

export async function startMigration(tenant: string, body: NewMigrationInput): Promise<MigrationView> {
  return (await api.POST("/api/v1/tenants/{tenant}/migrations", { params: { path: { tenant } }, body })).data!;
}

const ACTION_PATH = {
  switch: "/api/v1/tenants/{tenant}/migrations/{id}/switch",
  "switch-back": "/api/v1/tenants/{tenant}/migrations/{id}/switch-back",
  abort: "/api/v1/tenants/{tenant}/migrations/{id}/abort",
  finish: "/api/v1/tenants/{tenant}/migrations/{id}/finish",
} as const satisfies Record<MigrationAction, keyof paths>;

export async function actOnMigration(
  tenant: string,
  id: string,
  action: MigrationAction,
  reason?: string,
): Promise<MigrationView> {
  const body = reason && reason.trim() ? { reason: reason.trim() } : {};
  return (await api.POST(ACTION_PATH[action], { params: { path: { tenant, id } }, body })).data!;
}

export function migrationsHref(tenant: string, migrationId?: string): string {
  const base = `/tenants/${encodeURIComponent(tenant)}/migrations`;
  return migrationId ? `${base}?migration=${encodeURIComponent(migrationId)}` : base;
}

/** The tasks list with the migration's failed builds of one error code. */
export function migrationFailuresHref(tenant: string, errorCode: string): string {
  const q = new URLSearchParams({ type: "MIGRATE", status: "DEAD", errorCode, tenant });
  return `/tasks?${q.toString()}`;
}

// ---------- hooks ----------

/** While a candidate builds or waits for the switch (the brief's 2 s); after a switch publishes still move it. */
export const MIGRATION_POLL_MS = 2000;
export const MIGRATION_SWITCHED_POLL_MS = 10_000;
export const MIGRATIONS_LIST_POLL_MS = 10_000;

export const spaceKeys = {
  spaces: ["spaces"] as const,
  /** Everything of one tenant's migrations (list and details), for invalidation. */
  tenant: (tenant: string) => ["migrations", tenant] as const,
  migrations: (tenant: string) => ["migrations", tenant, "list"] as const,
  migration: (tenant: string, id: string) => ["migrations", tenant, "one", id] as const,
  allMigrations: ["migrations"] as const,
};

/** Operators and admins read the spaces (viewers are refused, so the query is not made for them). */
export function useSpaces(enabled = true) {
  return useQuery({
    queryKey: spaceKeys.spaces,
    queryFn: ({ signal }) => fetchSpaces(signal),
    enabled,
    retry: shouldRetry,
    refetchInterval: 10_000,
    refetchIntervalInBackground: false,
  });
}

export function useMigrations(tenant: string, opts: { poll?: boolean } = {}) {
  return useQuery({
    queryKey: spaceKeys.migrations(tenant),
    queryFn: ({ signal }) => fetchMigrations(tenant, signal),
    retry: shouldRetry,
    refetchInterval: (query) => {
      if (opts.poll === false || query.state.error) return false;
      return (query.state.data ?? []).some(isOpenMigration) ? MIGRATIONS_LIST_POLL_MS : false;
    },
    refetchIntervalInBackground: false,
  });
}

/** The most tenants whose migrations one view reads (one request each; the tenants page says when it stops). */
export const TENANT_MIGRATIONS_CAP = 100;

/**
 * The migrations of several tenants (the tenants page, the overview's card): one request per tenant
 * under the same keys as useMigrations, so opening a tenant's page finds them cached.
 */
export function useTenantsMigrations(tenants: readonly string[]) {
  return useQueries({
    queries: tenants.slice(0, TENANT_MIGRATIONS_CAP).map((tenant) => ({
      queryKey: spaceKeys.migrations(tenant),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchMigrations(tenant, signal),
      retry: shouldRetry,
      refetchInterval: (query: { state: { data?: MigrationView[]; error: unknown } }) =>
        !query.state.error && (query.state.data ?? []).some(isOpenMigration) ? MIGRATIONS_LIST_POLL_MS : false,
      refetchIntervalInBackground: false,
    })),
  });
}

/** One migration; every 2 s while BUILDING or READY, every 10 s while SWITCHED, not at all once it ended. */
export function useMigration(tenant: string, id: string | null, initial?: MigrationView) {
  return useQuery({
    queryKey: spaceKeys.migration(tenant, id ?? "none"),
    queryFn: ({ signal }) => fetchMigration(tenant, id as string, signal),
    enabled: id !== null,
    initialData: initial,
    // The list's copy is a few seconds old at most: refetch it at once, then on the interval.
    initialDataUpdatedAt: 0,
    retry: shouldRetry,
    placeholderData: keepPreviousData,
    refetchInterval: (query) => {
      if (query.state.error) return false;
      const m = query.state.data;
      if (!m) return MIGRATION_POLL_MS;
      if (isBuildingMigration(m)) return MIGRATION_POLL_MS;
      return m.state === "SWITCHED" ? MIGRATION_SWITCHED_POLL_MS : false;
    },
    refetchIntervalInBackground: false,
  });
}

function useSpacesMutation<I, R>(fn: (input: I) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () =>
      void Promise.all([
        qc.invalidateQueries({ queryKey: spaceKeys.spaces }),
        qc.invalidateQueries({ queryKey: queryKeys.audit }),
      ]),
  });
}

export function useCreateSpace() {
  return useSpacesMutation((body: NewSpaceInput) => createSpace(body));
}

export function useUpdateSpace() {
  return useSpacesMutation(({ name, patch }: { name: string; patch: SpacePatch }) => updateSpace(name, patch));
}

export function useRetireSpace() {
  return useSpacesMutation(({ name, reason }: { name: string; reason?: string }) => retireSpace(name, reason));
}

/** After a migration action: the tenant's migrations, the spaces' counts, searches (a switch changes what answers) and the task views. */
function invalidateAfterMigration(qc: ReturnType<typeof useQueryClient>, tenant: string, m?: MigrationView) {
  if (m) qc.setQueryData(spaceKeys.migration(tenant, m.id), m);
  return invalidateOperations(qc, [spaceKeys.tenant(tenant), spaceKeys.spaces, queryKeys.allSearches]);
}

export function useStartMigration(tenant: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NewMigrationInput) => startMigration(tenant, body),
    onSuccess: (m) => void invalidateAfterMigration(qc, tenant, m),
  });
}

export function useMigrationAction(tenant: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action, reason }: { id: string; action: MigrationAction; reason?: string }) =>
      actOnMigration(tenant, id, action, reason),
    onSuccess: (m) => void invalidateAfterMigration(qc, tenant, m),
  });
}
