// React Query hooks for the dashboard. Only import from client components.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
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
  bulkRetryTasks,
  deleteDocument,
  fetchAudit,
  fetchDocument,
  fetchDocuments,
  fetchTask,
  fetchTasks,
  fetchTenants,
  fetchWorkers,
  forceDoneTask,
  publishDocument,
  reindexDocument,
  retryTask,
  rollbackDocument,
  unpinDocument,
  type BulkRetryInput,
  type DocumentFilters,
  type DocumentRef,
  type TaskFilters,
} from "./api";
import { isBusy, isTerminalStatus, type PublishInput, type SearchInput } from "./schemas";
import { fetchScopedOverview, searchWithPrincipals, type SearchAnswer } from "./trust";

export const LIST_POLL_MS = 2000;
export const DETAIL_BUSY_POLL_MS = 1500;
export const DETAIL_IDLE_POLL_MS = 5000;
export const TASK_DETAIL_POLL_MS = 2000;
export const OVERVIEW_POLL_MS = 5000;
export const WORKERS_POLL_MS = 5000;

export const queryKeys = {
  documents: (f: DocumentFilters) =>
    ["documents", { tenant: f.tenant ?? "", state: f.state ?? "", q: f.q ?? "" }] as const,
  allDocuments: ["documents"] as const,
  tenants: ["tenants"] as const,
  document: (tenant: string, key: string) => ["document", tenant, key] as const,
  allDocumentDetails: ["document"] as const,
  allSearches: ["search"] as const,
  search: (s: SearchInput) => ["search", s.tenant, s.query, s.topK, s.principals.join(","), s.mode ?? ""] as const,
  overview: ["overview"] as const,
  allTasks: ["tasks"] as const,
  tasks: (f: TaskFilters) =>
    [
      "tasks",
      { status: f.status ?? "", errorCode: f.errorCode ?? "", type: f.type ?? "", tenant: f.tenant ?? "" },
    ] as const,
  task: (taskId: string) => ["task", taskId] as const,
  allTaskDetails: ["task"] as const,
  workers: ["workers"] as const,
  audit: ["audit"] as const,
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

/** The caller's tenants; `fresh` (the Tenants page, where the list is the content) reads them again on every visit. */
export function useTenants({ fresh = false }: { fresh?: boolean } = {}) {
  return useQuery({
    queryKey: queryKeys.tenants,
    queryFn: ({ signal }) => fetchTenants(signal),
    staleTime: fresh ? 0 : 30_000,
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

// ---------- operations ----------

export function useOverview() {
  return useQuery({
    queryKey: queryKeys.overview,
    queryFn: ({ signal }) => fetchScopedOverview(signal),
    refetchInterval: OVERVIEW_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useTasks(filters: TaskFilters) {
  return useInfiniteQuery({
    queryKey: queryKeys.tasks(filters),
    queryFn: ({ pageParam, signal }) => fetchTasks(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: LIST_POLL_MS,
    refetchIntervalInBackground: false,
    placeholderData: keepPreviousData,
  });
}

/** One task with its timeline; polls every 2 s until the task is terminal (or missing). */
export function useTask(taskId: string | null) {
  return useQuery({
    queryKey: taskId ? queryKeys.task(taskId) : ["task", "none"],
    queryFn: ({ signal }) => fetchTask(taskId as string, signal),
    enabled: taskId !== null,
    refetchInterval: (query) => {
      if (query.state.error) return false;
      const data = query.state.data;
      return data && isTerminalStatus(data.status) ? false : TASK_DETAIL_POLL_MS;
    },
    refetchIntervalInBackground: false,
  });
}

export function useWorkers() {
  return useQuery({
    queryKey: queryKeys.workers,
    queryFn: ({ signal }) => fetchWorkers(signal),
    refetchInterval: WORKERS_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useAudit(enabled: boolean) {
  return useInfiniteQuery({
    queryKey: queryKeys.audit,
    queryFn: ({ pageParam, signal }) => fetchAudit(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled,
    staleTime: 5_000,
  });
}

/** After any operator action: everything that shows tasks, documents or fleet figures is stale. */
export function invalidateOperations(qc: QueryClient, extra: readonly (readonly unknown[])[] = []): Promise<unknown> {
  return Promise.all(
    [
      queryKeys.allTasks,
      queryKeys.allTaskDetails,
      queryKeys.allDocuments,
      queryKeys.allDocumentDetails,
      queryKeys.overview,
      queryKeys.workers,
      queryKeys.audit,
      ...extra,
    ].map((queryKey) => qc.invalidateQueries({ queryKey })),
  );
}

/**
 * For action dialogs: after the server refused an action (e.g. 409 because the task changed in the
 * meantime), the data behind the dialog is stale. Refresh it when the dialog closes, not at once,
 * so the dialog and its error message stay put until the person has read them.
 */
export function useRefreshOnCloseAfterError(): (failed: boolean) => void {
  const qc = useQueryClient();
  return (failed: boolean) => {
    if (failed) void invalidateOperations(qc);
  };
}

export function useRetryTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ taskId, reason }: { taskId: string; reason?: string }) => retryTask(taskId, reason),
    onSuccess: () => void invalidateOperations(qc),
  });
}

export function useForceDone() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ taskId, reason }: { taskId: string; reason: string }) => forceDoneTask(taskId, reason),
    onSuccess: () => void invalidateOperations(qc),
  });
}

export function useBulkRetry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: BulkRetryInput) => bulkRetryTasks(input),
    onSuccess: () => void invalidateOperations(qc),
  });
}

export function useRollback() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ doc, toVersion, reason }: { doc: DocumentRef; toVersion: number; reason: string }) =>
      rollbackDocument(doc, toVersion, reason),
    onSuccess: () => void invalidateOperations(qc, [queryKeys.allSearches]),
  });
}

export function useUnpin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (doc: DocumentRef) => unpinDocument(doc),
    onSuccess: () => void invalidateOperations(qc, [queryKeys.allSearches]),
  });
}

export function useReindex() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (doc: DocumentRef) => reindexDocument(doc),
    onSuccess: () => void invalidateOperations(qc),
  });
}

export function useDeleteDocument() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (doc: DocumentRef) => deleteDocument(doc),
    onSuccess: () => void invalidateOperations(qc, [queryKeys.allSearches]),
  });
}

export function useSearch(input: SearchInput | null) {
  return useQuery({
    queryKey: input ? queryKeys.search(input) : ["search", "idle"],
    queryFn: ({ signal }): Promise<SearchAnswer> =>
      input ? searchWithPrincipals(input, signal) : Promise.resolve({ hits: [], searchedAs: null, space: null }),
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

/**
 * The page's query string and a setter that patches it (an empty value removes the key), replacing
 * the history entry without scrolling: list filters live in the URL.
 */
export function useSearchParamsPatch() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const setParams = useCallback(
    (patch: Record<string, string>) => {
      const next = new URLSearchParams(searchParams.toString());
      for (const [k, v] of Object.entries(patch)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      const qs = next.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname, searchParams],
  );
  return [searchParams, setParams] as const;
}

/** "/" focuses the page's main search box (as on GitHub), unless someone is typing or a dialog is open. */
export function useSlashToFocus(inputId: string): void {
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
      if (document.querySelector('[role="dialog"], dialog[open]')) return;
      const el = document.getElementById(inputId);
      if (!(el instanceof HTMLInputElement)) return;
      e.preventDefault();
      el.focus();
      el.select();
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [inputId]);
}
