// React Query hooks for the dashboard. Only import from client components.
import { useEffect, useState } from "react";
import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from "@tanstack/react-query";
import {
  ApiError,
  fetchDocument,
  fetchDocuments,
  fetchTenants,
  publishDocument,
  searchTenant,
  type DocumentFilters,
} from "./api";
import { isBusy, type PublishInput, type SearchInput } from "./schemas";

export const LIST_POLL_MS = 2000;
export const DETAIL_BUSY_POLL_MS = 1500;
export const DETAIL_IDLE_POLL_MS = 5000;

export const queryKeys = {
  documents: (f: DocumentFilters) => ["documents", { tenant: f.tenant ?? "", state: f.state ?? "", q: f.q ?? "" }] as const,
  allDocuments: ["documents"] as const,
  tenants: ["tenants"] as const,
  document: (tenant: string, key: string) => ["document", tenant, key] as const,
  search: (s: SearchInput) => ["search", s.tenant, s.query, s.topK, s.principals.join(",")] as const,
};

/** Client errors (4xx) are answers, not glitches: retrying them only delays the error state. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

export function useDocuments(filters: DocumentFilters) {
  return useInfiniteQuery({
    queryKey: queryKeys.documents(filters),
    queryFn: ({ pageParam, signal }) => fetchDocuments(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: LIST_POLL_MS,
    // Interval refetches pause while the tab is hidden (React Query's default, stated for clarity).
    refetchIntervalInBackground: false,
    placeholderData: keepPreviousData,
  });
}

export function useTenants() {
  return useQuery({
    queryKey: queryKeys.tenants,
    queryFn: ({ signal }) => fetchTenants(signal),
    staleTime: 30_000,
  });
}

export function useDocument(tenant: string, key: string) {
  return useQuery({
    queryKey: queryKeys.document(tenant, key),
    queryFn: ({ signal }) => fetchDocument(tenant, key, signal),
    refetchInterval: (query) => {
      const err = query.state.error;
      if (err instanceof ApiError && err.isNotFound) return DETAIL_IDLE_POLL_MS;
      const data = query.state.data;
      return data && isBusy(data.state) ? DETAIL_BUSY_POLL_MS : DETAIL_IDLE_POLL_MS;
    },
    refetchIntervalInBackground: false,
  });
}

export function invalidateAfterPublish(qc: QueryClient, tenant: string, key: string): Promise<unknown> {
  return Promise.all([
    qc.invalidateQueries({ queryKey: queryKeys.allDocuments }),
    qc.invalidateQueries({ queryKey: queryKeys.tenants }),
    qc.invalidateQueries({ queryKey: queryKeys.document(tenant, key) }),
  ]);
}

export function usePublish() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: PublishInput) => publishDocument(input),
    onSuccess: (_data, input) => {
      // Not awaited: the dialog closes at once and the list refreshes behind it.
      void invalidateAfterPublish(qc, input.tenant, input.key);
    },
  });
}

export function useSearch(input: SearchInput | null) {
  return useQuery({
    queryKey: input ? queryKeys.search(input) : ["search", "idle"],
    queryFn: ({ signal }) => (input ? searchTenant(input, signal) : Promise.resolve([])),
    enabled: input !== null,
    staleTime: 10_000,
    refetchOnWindowFocus: false,
  });
}

/** A clock that ticks every `ms`, for relative timestamps. */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(id);
  }, [ms]);
  return now;
}

/** `value`, updated only after it has been stable for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = window.setTimeout(() => setV(value), ms);
    return () => window.clearTimeout(id);
  }, [value, ms]);
  return v;
}
