// Client side of the operator tools: exports, audit filters, the overview's time range and the
// chunk browser. Only import from client components.
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { AuditFilters } from "../audit/schemas";
import type { ChunkListQuery } from "../documents/chunk-schemas";
import type { ActivityRange } from "../operations/range";
import type { paths, Schemas } from "../client";
import { api, given, type AuditPage, type DocumentFilters, type TaskFilters } from "./api";

export const ACTIVITY_POLL_MS = 30_000;

function query(params: Record<string, string | number | undefined | null>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") qs.set(k, String(v));
  const s = qs.toString();
  return s ? `?${s}` : "";
}

// ---------- exports ----------

export type ExportKind = "documents" | "tasks";

/** The export of a list with the filters it shows: a plain link, so the browser streams it to a file. */
export function exportHref(kind: "documents", filters: DocumentFilters, format: "csv" | "json"): string;
export function exportHref(kind: "tasks", filters: TaskFilters, format: "csv" | "json"): string;
export function exportHref(kind: ExportKind, filters: DocumentFilters | TaskFilters, format: "csv" | "json"): string {
  return `/api/v1/${kind}/export${query({ ...filters, format })}`;
}

// ---------- audit ----------

export async function fetchAuditFiltered(
  filters: AuditFilters,
  cursor: string | null,
  signal?: AbortSignal,
  limit = 50,
): Promise<AuditPage> {
  return (
    await api.GET("/api/v1/audit", {
      params: { query: given({ ...filters, cursor: cursor ?? undefined, limit }) },
      signal,
    })
  ).data!;
}

/** Keyed under "audit", so the operator actions' invalidation (invalidateOperations) refreshes it too. */
export function useAuditFiltered(filters: AuditFilters, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ["audit", { ...filters }],
    queryFn: ({ pageParam, signal }) => fetchAuditFiltered(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled,
    staleTime: 5_000,
    placeholderData: keepPreviousData,
  });
}

// ---------- overview activity ----------

export type Activity = Schemas["OverviewActivity"];
export type ThroughputPoint = Activity["throughput"][number];

export async function fetchActivity(range: ActivityRange, signal?: AbortSignal): Promise<Activity> {
  return (await api.GET("/api/v1/overview/activity", { params: { query: { range } }, signal })).data!;
}

export function useActivity(range: ActivityRange) {
  return useQuery({
    queryKey: ["overview", "activity", range],
    queryFn: ({ signal }) => fetchActivity(range, signal),
    refetchInterval: ACTIVITY_POLL_MS,
    refetchIntervalInBackground: false,
    placeholderData: keepPreviousData,
  });
}

// ---------- chunk browser ----------

export type ChunkPage = Schemas["ChunkPage"];
export type Chunk = ChunkPage["items"][number];
export type ChunkIndexVersion = ChunkPage["indexVersions"][number];

export type ChunkFilters = { indexVersion?: ChunkListQuery["indexVersion"]; level?: number };

export async function fetchChunks(
  tenant: string,
  key: string,
  f: ChunkFilters,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<ChunkPage> {
  const chunkQuery = given({ indexVersion: f.indexVersion, level: f.level, cursor, limit: 50 }) as NonNullable<
    paths["/api/v1/tenants/{tenant}/documents/{key}/chunks"]["get"]["parameters"]["query"]
  >;
  return (
    await api.GET("/api/v1/tenants/{tenant}/documents/{key}/chunks", {
      params: { path: { tenant, key }, query: chunkQuery },
      signal,
    })
  ).data!;
}

export function useChunks(tenant: string, key: string, f: ChunkFilters, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ["document", tenant, key, "chunks", { indexVersion: f.indexVersion ?? "", level: f.level ?? "" }],
    queryFn: ({ pageParam, signal }) => fetchChunks(tenant, key, f, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled,
    staleTime: 10_000,
    placeholderData: keepPreviousData,
  });
}
