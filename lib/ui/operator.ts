// Client side of the operator tools: exports, audit filters, the overview's time range and the
// chunk browser. Only import from client components.
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { z } from "zod";
import type { AuditFilters } from "../audit/schemas";
import type { ChunkListQuery } from "../documents/chunk-schemas";
import { OUTCOMES, type ActivityRange } from "../operations/range";
import { api, given, parse, request, type AuditPage, type DocumentFilters, type TaskFilters } from "./api";
import { snapshotSchema } from "./schemas";

export const ACTIVITY_POLL_MS = 30_000;

const seg = encodeURIComponent;

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

export async function fetchAuditFiltered(filters: AuditFilters, cursor: string | null, signal?: AbortSignal, limit = 50): Promise<AuditPage> {
  return (await api.GET("/api/v1/audit", { params: { query: given({ ...filters, cursor: cursor ?? undefined, limit }) }, signal })).data!;
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

const count = z.number();
export const throughputPointSchema = z.object({ at: z.string(), SUCCEEDED: count, DEAD: count, RESOLVED: count, SUPERSEDED: count });
export type ThroughputPoint = z.infer<typeof throughputPointSchema>;
export const activitySchema = z.object({
  range: z.string(),
  generatedAt: z.string(),
  bucketSeconds: z.number(),
  scope: z.enum(["fleet", "tenants"]),
  totals: z.object(Object.fromEntries(OUTCOMES.map((o) => [o, count])) as Record<(typeof OUTCOMES)[number], typeof count>),
  throughput: z.array(throughputPointSchema),
  history: z.array(snapshotSchema),
});
export type Activity = z.infer<typeof activitySchema>;

export async function fetchActivity(range: ActivityRange, signal?: AbortSignal): Promise<Activity> {
  const { json } = await request(`/api/v1/overview/activity${query({ range })}`, { signal });
  return parse(activitySchema, json, "overview activity");
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

export const chunkSchema = z.object({
  ordinal: z.number(),
  chunkId: z.string().nullable(),
  level: z.number(),
  sectionPath: z.string().nullable(),
  text: z.string().nullable(),
  chars: z.number(),
  contentHash: z.string().nullable(),
  reused: z.boolean(),
});
export type Chunk = z.infer<typeof chunkSchema>;
export const chunkIndexVersionSchema = z.object({
  id: z.string(),
  versionNumber: z.number(),
  status: z.string(),
  chunkerVersion: z.string(),
  embeddingModel: z.string(),
  embeddingDimensions: z.number(),
  chunkCount: z.number(),
  chunksReusedAtBuild: z.number().nullable(),
  createdAt: z.string(),
  serving: z.boolean(),
});
export type ChunkIndexVersion = z.infer<typeof chunkIndexVersionSchema>;
export const chunkPageSchema = z.object({
  indexVersions: z.array(chunkIndexVersionSchema),
  indexVersionId: z.string().nullable(),
  textHidden: z.boolean(),
  textHiddenReason: z.enum(["ACL", "DELETED"]).nullable(),
  items: z.array(chunkSchema),
  nextCursor: z.string().nullable(),
});
export type ChunkPage = z.infer<typeof chunkPageSchema>;

export type ChunkFilters = { indexVersion?: ChunkListQuery["indexVersion"]; level?: number };

export async function fetchChunks(tenant: string, key: string, f: ChunkFilters, cursor: string | null, signal?: AbortSignal): Promise<ChunkPage> {
  const { json } = await request(`/api/v1/tenants/${seg(tenant)}/documents/${seg(key)}/chunks${query({ indexVersion: f.indexVersion, level: f.level, cursor, limit: 50 })}`, { signal });
  return parse(chunkPageSchema, json, "chunk list");
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
