// Queue pauses and task cancel for the dashboard: the calls (typed client) and their React Query
// hooks. Only import from client components.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { paths, Schemas } from "../client";
import { api } from "./api";
import { invalidateOperations } from "./hooks";

export type Pause = Schemas["TaskPause"];

/** What a pause holds, as people read it. */
export function pauseTarget(p: { tenant: string | null; taskType: string | null }): string {
  return p.tenant !== null ? `tenant ${p.tenant}` : `every ${p.taskType} task`;
}

type PauseBody = NonNullable<paths["/api/v1/pauses"]["post"]["requestBody"]>["content"]["application/json"];
export type PauseInput = { tenant: string; reason: string } | { taskType: string; reason: string };

const PAUSES_KEY = ["pauses"] as const;
/** Tasks and documents change what they show when a pause starts or ends; so do the pauses. */
const invalidate = (qc: ReturnType<typeof useQueryClient>) => invalidateOperations(qc, [PAUSES_KEY]);

export function usePauses() {
  return useQuery({
    queryKey: PAUSES_KEY,
    queryFn: async ({ signal }) => (await api.GET("/api/v1/pauses", { signal })).data!.items,
    refetchInterval: 10_000,
  });
}

export function usePause() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (input: PauseInput) =>
      (await api.POST("/api/v1/pauses", { body: { ...input, reason: input.reason.trim() } as PauseBody })).data!,
    onSuccess: () => void invalidate(qc),
  });
}

export function useResume() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.DELETE("/api/v1/pauses/{id}", { params: { path: { id } } })).data!,
    onSuccess: () => void invalidate(qc),
  });
}

export function useCancelTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ taskId, reason }: { taskId: string; reason: string }) =>
      (
        await api.POST("/api/v1/tasks/{taskId}/cancel", {
          params: { path: { taskId } },
          body: { reason: reason.trim() },
        })
      ).data!,
    onSuccess: () => void invalidate(qc),
  });
}
