// The freshness SLO in the dashboard (docs/operations.md#freshness-slo): types from the typed
// client, React Query hooks, and the figures' wording. Only import from client components.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { paths } from "../client";
import { api, ApiError } from "./api";
import { shouldRetry } from "./hooks";

type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;

export type SloList = JsonOf<paths["/api/v1/slo"]["get"]["responses"][200]>;
export type SloSummary = SloList["items"][number];
export type TenantSlo = JsonOf<paths["/api/v1/tenants/{tenant}/slo"]["get"]["responses"][200]>;
export type SloDay = TenantSlo["days"][number];

export const sloKeys = {
  list: ["slo"] as const,
  tenant: (tenant: string) => ["slo", tenant] as const,
};

/** The figures move as publishes are decided; each read is one statement over the window. */
export const SLO_POLL_MS = 30_000;

export function useFreshnessSloList() {
  return useQuery({
    queryKey: sloKeys.list,
    queryFn: async ({ signal }) => (await api.GET("/api/v1/slo", { signal })).data!,
    retry: shouldRetry,
    refetchInterval: SLO_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useTenantFreshnessSlo(tenant: string) {
  return useQuery({
    queryKey: sloKeys.tenant(tenant),
    queryFn: async ({ signal }) =>
      (await api.GET("/api/v1/tenants/{tenant}/slo", { params: { path: { tenant } }, signal })).data!,
    retry: shouldRetry,
    refetchInterval: SLO_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useSetFreshnessSlo(tenant: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: { objective?: number | null; targetSeconds?: number | null }) =>
      (await api.PUT("/api/v1/tenants/{tenant}/slo", { params: { path: { tenant } }, body })).data!,
    onSuccess: (data) => {
      qc.setQueryData(sloKeys.tenant(tenant), data);
      void qc.invalidateQueries({ queryKey: sloKeys.list, exact: true });
    },
  });
}

export type FieldProblem = { field: "objective" | "targetSeconds" | null; message: string };

/** The problems an SLO_INVALID refusal lists, with the field each is about. */
export function sloProblemsOf(err: unknown): FieldProblem[] {
  if (!(err instanceof ApiError) || err.code !== "SLO_INVALID") return [];
  const problems = (err.details as { problems?: FieldProblem[] } | undefined)?.problems ?? [];
  return problems.filter((p) => typeof p.message === "string");
}

/**
 * A ratio as a percentage with the precision an objective needs: 99.5 % and 99 % differ by half
 * the budget, so two decimals below 100 (trailing zeros dropped), none at 0 and 100.
 */
export function formatSloPercent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return "—";
  const pct = ratio * 100;
  if (pct === 100 || pct === 0) return `${pct} %`;
  return `${Number(pct.toFixed(2))} %`;
}

/** Budget left as the reader acts on it: the share left, or how far it is overspent. */
export function describeBudget(left: number | null): string {
  if (left === null) return "no publish decided yet";
  if (left < 0) return `overspent by ${formatSloPercent(-left)}`;
  return `${formatSloPercent(left)} left`;
}

export type SloTone = "ok" | "warn" | "danger" | "neutral";

/** Spent (or overspent) is a finding; under a quarter left is worth watching. */
export function budgetTone(left: number | null): SloTone {
  if (left === null) return "neutral";
  if (left <= 0) return "danger";
  if (left < 0.25) return "warn";
  return "ok";
}

export const freshnessHref = (tenant: string) => `/tenants/${encodeURIComponent(tenant)}/freshness`;
