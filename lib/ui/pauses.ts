// Queue pauses and task cancel for the dashboard: schemas of their answers, the calls and their
// React Query hooks. Only import from client components.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { parse, request } from "./api";
import { invalidateOperations } from "./hooks";

export const pauseSchema = z.object({
  id: z.coerce.string(),
  tenant: z.string().nullable(),
  taskType: z.string().nullable(),
  pausedBy: z.string(),
  reason: z.string(),
  since: z.string(),
  waiting: z.number(),
});
export type Pause = z.infer<typeof pauseSchema>;
const pauseListSchema = z.object({ items: z.array(pauseSchema) });

/** What a pause holds, as people read it. */
export function pauseTarget(p: { tenant: string | null; taskType: string | null }): string {
  return p.tenant !== null ? `tenant ${p.tenant}` : `every ${p.taskType} task`;
}

export type PauseInput = { tenant: string; reason: string } | { taskType: string; reason: string };

const PAUSES_KEY = ["pauses"] as const;
/** Tasks and documents change what they show when a pause starts or ends; so do the pauses. */
const invalidate = (qc: ReturnType<typeof useQueryClient>) => invalidateOperations(qc, [PAUSES_KEY]);

export function usePauses() {
  return useQuery({
    queryKey: PAUSES_KEY,
    queryFn: async ({ signal }) => parse(pauseListSchema, (await request("/api/v1/pauses", { signal })).json, "pauses").items,
    refetchInterval: 10_000,
  });
}

export function usePause() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (input: PauseInput) => parse(pauseSchema, (await request("/api/v1/pauses", { method: "POST", body: { ...input, reason: input.reason.trim() } })).json, "pause"),
    onSuccess: () => void invalidate(qc),
  });
}

export function useResume() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await request(`/api/v1/pauses/${encodeURIComponent(id)}`, { method: "DELETE" })).json,
    onSuccess: () => void invalidate(qc),
  });
}

export function useCancelTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ taskId, reason }: { taskId: string; reason: string }) =>
      parse(
        z.object({ taskId: z.coerce.string(), status: z.string() }),
        (await request(`/api/v1/tasks/${encodeURIComponent(taskId)}/cancel`, { method: "POST", body: { reason: reason.trim() } })).json,
        "cancel",
      ),
    onSuccess: () => void invalidate(qc),
  });
}

