// Retrieval evaluation in the dashboard (docs/evaluation.md): types from the typed client,
// fetchers, React Query hooks, and the pure rules the page uses (reading an uploaded set, a run's
// wins and losses against an earlier one). Only import from client components.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { paths } from "../client";
import { api, ApiError } from "./api";
import { shouldRetry } from "./hooks";

type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;

export type EvaluationSet = JsonOf<paths["/api/v1/tenants/{tenant}/evaluation-set"]["get"]["responses"][200]>;
export type EvaluationQuery = EvaluationSet["queries"][number];
export type RunSummary = JsonOf<
  paths["/api/v1/tenants/{tenant}/evaluations"]["get"]["responses"][200]
>["items"][number];
export type RunView = JsonOf<paths["/api/v1/tenants/{tenant}/evaluations/{id}"]["get"]["responses"][200]>;
export type QueryResult = Extract<NonNullable<RunView["queries"]>[number], { query: string }>;
export type RunMode = RunSummary["mode"];

export const evaluationKeys = {
  set: (tenant: string) => ["evaluation-set", tenant] as const,
  runs: (tenant: string) => ["evaluations", tenant] as const,
  run: (tenant: string, id: string) => ["evaluation", tenant, id] as const,
};

/** While a run waits or runs, the page follows it this often. */
export const RUN_POLL_MS = 2_000;
const isOpenRun = (r: Pick<RunSummary, "state">) => r.state === "PENDING" || r.state === "RUNNING";

/** The set, or null when the tenant has none yet (404). */
export function useEvaluationSet(tenant: string) {
  return useQuery({
    queryKey: evaluationKeys.set(tenant),
    queryFn: async ({ signal }) => {
      try {
        const r = await api.GET("/api/v1/tenants/{tenant}/evaluation-set", { params: { path: { tenant } }, signal });
        return r.data ?? null;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    retry: shouldRetry,
  });
}

export function useEvaluationRuns(tenant: string) {
  return useQuery({
    queryKey: evaluationKeys.runs(tenant),
    queryFn: async ({ signal }) =>
      (await api.GET("/api/v1/tenants/{tenant}/evaluations", { params: { path: { tenant } }, signal })).data!.items,
    retry: shouldRetry,
    refetchInterval: (q) => ((q.state.data ?? []).some(isOpenRun) && !q.state.error ? RUN_POLL_MS : false),
    refetchIntervalInBackground: false,
  });
}

export function useEvaluationRun(tenant: string, id: string | null, enabled = true) {
  return useQuery({
    queryKey: evaluationKeys.run(tenant, id ?? ""),
    queryFn: async ({ signal }) =>
      (
        await api.GET("/api/v1/tenants/{tenant}/evaluations/{id}", {
          params: { path: { tenant, id: id! } },
          signal,
        })
      ).data!,
    enabled: enabled && id !== null,
    retry: shouldRetry,
    refetchInterval: (q) => (q.state.data && isOpenRun(q.state.data) ? RUN_POLL_MS : false),
  });
}

export function usePutEvaluationSet(tenant: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (queries: EvaluationQuery[]) =>
      (
        await api.PUT("/api/v1/tenants/{tenant}/evaluation-set", {
          params: { path: { tenant } },
          body: { queries },
        })
      ).data!,
    onSuccess: (data) => qc.setQueryData(evaluationKeys.set(tenant), data),
  });
}

export function useStartEvaluation(tenant: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: { mode: RunMode; topK?: number; space?: string }) =>
      (await api.POST("/api/v1/tenants/{tenant}/evaluations", { params: { path: { tenant } }, body })).data!,
    onSuccess: () => void qc.invalidateQueries({ queryKey: evaluationKeys.runs(tenant) }),
  });
}

/** The problems an EVALUATION_SET_INVALID refusal lists, one line each. */
export function setProblemsOf(err: unknown): string[] {
  if (!(err instanceof ApiError) || err.code !== "EVALUATION_SET_INVALID") return [];
  const problems = (err.details as { problems?: { message?: string }[] } | undefined)?.problems ?? [];
  return problems.map((p) => p.message ?? "").filter(Boolean);
}

/** A CSV line split into fields: commas separate, double quotes quote ("" is a quote). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((f) => f.trim());
}

const list = (s: string | undefined) =>
  (s ?? "")
    .split(/[;|]/)
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * An uploaded set: JSON (`{"queries": […]}` or `[…]`), JSONL (one query object a line), or CSV with
 * a header naming `query` and `relevant` (keys separated by `;` or `|`), optionally `principals`
 * (the same) and `grades` (`key=2;other=1`). Throws an Error naming the line that is wrong; the
 * server validates the rest (EVALUATION_SET_INVALID).
 */
export function parseSetUpload(text: string, fileName: string): EvaluationQuery[] {
  const name = fileName.toLowerCase();
  const body = text.replace(/^\uFEFF/, "").trim();
  if (!body) throw new Error(`${fileName} is empty`);
  if (name.endsWith(".csv")) {
    const lines = body.split(/\r?\n/).filter((l) => l.trim());
    const head = csvFields(lines[0]).map((h) => h.toLowerCase());
    const at = (h: string) => head.indexOf(h);
    if (at("query") < 0 || at("relevant") < 0)
      throw new Error(`${fileName}: the first line must name the columns query and relevant`);
    return lines.slice(1).map((line, i) => {
      const f = csvFields(line);
      const grades = list(f[at("grades")]).map((g) => g.split("="));
      if (grades.some((g) => g.length !== 2 || !/^[0-3]$/.test(g[1].trim())))
        throw new Error(`${fileName}:${i + 2}: grades are key=0..3, separated by ;`);
      const principals = list(f[at("principals")]);
      return {
        query: f[at("query")] ?? "",
        relevant: list(f[at("relevant")]),
        ...(grades.length ? { grades: Object.fromEntries(grades.map(([k, g]) => [k.trim(), Number(g)])) } : {}),
        ...(principals.length ? { principals } : {}),
      };
    });
  }
  if (!name.endsWith(".jsonl") && (body.startsWith("[") || body.startsWith("{"))) {
    try {
      const parsed = JSON.parse(body) as EvaluationQuery[] | { queries: EvaluationQuery[] };
      return Array.isArray(parsed) ? parsed : parsed.queries;
    } catch {
      if (body.startsWith("[")) throw new Error(`${fileName} is not valid JSON`);
    }
  }
  return body.split(/\r?\n/).flatMap((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith("#")) return [];
    try {
      return [JSON.parse(l) as EvaluationQuery];
    } catch {
      throw new Error(`${fileName}:${i + 1} is not a JSON object`);
    }
  });
}

export type QueryChange = {
  index: number;
  query: string;
  before: number;
  after: number;
  /** The first miss's stage in the run judged, if any. */
  stage: string | null;
};

/**
 * A run's queries against an earlier run of the same set version: wins (nDCG@10 up), losses
 * (down), worst first. Queries hidden from the reader in either run are left out.
 */
export function winsAndLosses(run: RunView, earlier: RunView): { wins: QueryChange[]; losses: QueryChange[] } {
  const wins: QueryChange[] = [];
  const losses: QueryChange[] = [];
  if (run.setVersion !== earlier.setVersion) return { wins, losses };
  const before = new Map(
    (earlier.queries ?? []).filter((q): q is QueryResult => "query" in q).map((q) => [q.index, q]),
  );
  for (const q of run.queries ?? []) {
    if (!("query" in q)) continue;
    const b = before.get(q.index);
    if (!b || Math.abs(q.ndcg - b.ndcg) < 1e-9) continue;
    const change = {
      index: q.index,
      query: q.query,
      before: b.ndcg,
      after: q.ndcg,
      stage: q.relevant.find((r) => r.diagnosis)?.diagnosis?.stage ?? null,
    };
    (q.ndcg > b.ndcg ? wins : losses).push(change);
  }
  losses.sort((a, b) => a.after - a.before - (b.after - b.before));
  wins.sort((a, b) => b.after - b.before - (a.after - a.before));
  return { wins, losses };
}

/** The runs the history chart draws: DONE, oldest first, one series point each. */
export function historyPoints(
  runs: RunSummary[],
): { t: number; id: string; label: string; ndcg: number; recall: number; mrr: number }[] {
  return runs
    .filter((r) => r.state === "DONE" && r.figures)
    .map((r) => ({
      t: Date.parse(r.finishedAt ?? r.createdAt),
      id: r.id,
      label: `#${r.id} ${r.space} ${r.mode}`,
      ndcg: r.figures!.ndcgAt10,
      recall: r.figures!.recallAt10,
      mrr: r.figures!.mrrAt10,
    }))
    .sort((a, b) => a.t - b.t);
}

/** How the runs table names who asked for a run (the API's `trigger`). */
export const TRIGGER_LABEL: Record<RunSummary["trigger"], string> = {
  api: "by hand",
  gate: "switch gate",
  scheduled: "scheduled",
  switch: "after a switch",
};

/** The Evaluation page, optionally opened on one run (what the Migrations page links to). */
export function evaluationHref(tenant: string, runId?: string | null): string {
  const base = `/tenants/${encodeURIComponent(tenant)}/evaluation`;
  return runId ? `${base}?run=${encodeURIComponent(runId)}` : base;
}

export type WhyResult = JsonOf<paths["/api/v1/tenants/{tenant}/documents/{key}/why"]["post"]["responses"][200]>;
export type WhyAsk = { key: string; query: string; principals: string[]; mode: RunMode; topK: number };

/**
 * "Why isn't this document in my results?" now, in the tenant's active space, for one miss of a
 * run: the same diagnosis the run stored, asked again of the index as it stands (the run may be
 * older, or have searched a migration's other space).
 */
export function useWhy(tenant: string, ask: WhyAsk | null) {
  return useQuery({
    queryKey: ["why", tenant, ask] as const,
    queryFn: async ({ signal }) =>
      (
        await api.POST("/api/v1/tenants/{tenant}/documents/{key}/why", {
          params: { path: { tenant, key: ask!.key } },
          body: {
            query: ask!.query,
            ...(ask!.principals.length ? { principals: ask!.principals } : {}),
            mode: ask!.mode,
            topK: ask!.topK,
          },
          signal,
        })
      ).data!,
    enabled: ask !== null,
    retry: shouldRetry,
    staleTime: 30_000,
  });
}

/** The two runs a migration's side by side compares: one per space, same set version and mode when there is such a pair. */
export type SpacePair = { from: RunSummary | null; to: RunSummary | null; comparable: boolean };

/**
 * The newest finished run on each of a migration's two spaces. Figures only compare under the
 * same set version and mode, so the newest such pair is preferred (a gate's pair in vector mode,
 * or two runs asked for together); without one, each space's newest run, marked not comparable.
 */
export function latestPair(runs: RunSummary[], fromSpace: string, toSpace: string): SpacePair {
  const done = runs
    .filter((r) => r.state === "DONE" && r.figures && (r.space === fromSpace || r.space === toSpace))
    .sort((a, b) => Number(b.id) - Number(a.id));
  for (const r of done) {
    const other = done.find((o) => o.space !== r.space && o.mode === r.mode && o.setVersion === r.setVersion);
    if (other) {
      const [from, to] = r.space === fromSpace ? [r, other] : [other, r];
      return { from, to, comparable: true };
    }
  }
  return {
    from: done.find((r) => r.space === fromSpace) ?? null,
    to: done.find((r) => r.space === toSpace) ?? null,
    comparable: false,
  };
}

export type SpaceChange = {
  index: number;
  query: string;
  fromNdcg: number;
  toNdcg: number;
  /** Each relevant document (grade ≥ 1) with its rank in each space (null: not in the answer). */
  documents: { key: string; fromRank: number | null; toRank: number | null }[];
};

/**
 * Per query, the `to` space against the `from` space (same set version): wins (nDCG@10 up) best
 * first, losses (down) worst first. Queries hidden from the reader in either run are left out.
 */
export function spaceWinsAndLosses(from: RunView, to: RunView): { wins: SpaceChange[]; losses: SpaceChange[] } {
  const wins: SpaceChange[] = [];
  const losses: SpaceChange[] = [];
  if (from.setVersion !== to.setVersion) return { wins, losses };
  const before = new Map((from.queries ?? []).filter((q): q is QueryResult => "query" in q).map((q) => [q.index, q]));
  for (const q of to.queries ?? []) {
    if (!("query" in q)) continue;
    const b = before.get(q.index);
    if (!b || Math.abs(q.ndcg - b.ndcg) < 1e-9) continue;
    const change: SpaceChange = {
      index: q.index,
      query: q.query,
      fromNdcg: b.ndcg,
      toNdcg: q.ndcg,
      documents: q.relevant
        .filter((d) => d.grade >= 1)
        .map((d) => ({
          key: d.key,
          fromRank: b.relevant.find((x) => x.key === d.key)?.rank ?? null,
          toRank: d.rank,
        })),
    };
    (q.ndcg > b.ndcg ? wins : losses).push(change);
  }
  wins.sort((a, b) => b.toNdcg - b.fromNdcg - (a.toNdcg - a.fromNdcg));
  losses.sort((a, b) => a.toNdcg - a.fromNdcg - (b.toNdcg - b.fromNdcg));
  return { wins, losses };
}
