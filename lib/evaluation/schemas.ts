// The evaluation API's shapes (docs/evaluation.md): the route handlers parse with them, the OpenAPI
// document is drawn from them, the CLI sends them.
import { z } from "zod";
import { keyParam, NO_CONTROL, noControl, readableText, TEXT_CONTROL } from "../documents/schemas";
import { SEARCH_MODES, searchMode, type SearchMode } from "../search/modes";
import { spaceName } from "../spaces/schemas";

const principal = z.string().min(1).max(200).refine(noControl, NO_CONTROL);

/** Most queries a set holds: a run of all of them is a few minutes of searches at most. */
export const MAX_SET_QUERIES = 1000;

export const evaluationQuery = z
  .object({
    query: z.string().trim().min(1).max(4000).refine(readableText, TEXT_CONTROL),
    /** Keys of the documents a good answer names. */
    relevant: z.array(keyParam).min(1).max(100),
    /** Graded relevance per key of `relevant` (0 judged not relevant … 3 the best answer); absent: every key is 1. */
    grades: z.record(keyParam, z.number().int().min(0).max(3)).optional(),
    /** Whose ACL view the query is searched in; absent: none (only documents open to the whole tenant). */
    principals: z.array(principal).max(100).optional(),
  })
  .strict();
export type EvaluationQuery = z.infer<typeof evaluationQuery>;

export const evaluationSetBody = z
  .object({ queries: z.array(evaluationQuery).min(1).max(MAX_SET_QUERIES) })
  .strict()
  .meta({ id: "EvaluationSetBody" });
export type EvaluationSetBody = z.infer<typeof evaluationSetBody>;

/**
 * What the shape cannot say, each with its own stable code, all reported at once (400
 * EVALUATION_SET_INVALID, details.problems): nothing is written while one stands.
 */
export const SET_PROBLEMS = Object.freeze({
  DUPLICATE_RELEVANT: "a key is listed twice in relevant",
  GRADE_NOT_RELEVANT: "grades names a key that is not in relevant",
  NO_RELEVANT: "no key of relevant has a grade of 1 or more: nothing could be found",
  DUPLICATE_QUERY: "the same query with the same principals is in the set twice",
});
export type SetProblemCode = keyof typeof SET_PROBLEMS;
export type SetProblem = { query: number; code: SetProblemCode; message: string };

export function setProblems(body: EvaluationSetBody): SetProblem[] {
  const out: SetProblem[] = [];
  const seen = new Map<string, number>();
  body.queries.forEach((q, i) => {
    const add = (code: SetProblemCode, detail: string) =>
      out.push({ query: i, code, message: `queries.${i}: ${SET_PROBLEMS[code]}${detail}` });
    const dup = q.relevant.find((k, j) => q.relevant.indexOf(k) !== j);
    if (dup) add("DUPLICATE_RELEVANT", ` (${dup})`);
    const stray = Object.keys(q.grades ?? {}).filter((k) => !q.relevant.includes(k));
    if (stray.length) add("GRADE_NOT_RELEVANT", ` (${stray.join(", ")})`);
    if (!q.relevant.some((k) => (q.grades?.[k] ?? 1) >= 1)) add("NO_RELEVANT", "");
    const id = `${q.query.toLowerCase()}\u0000${[...new Set(q.principals ?? [])].sort().join(",")}`;
    if (seen.has(id)) add("DUPLICATE_QUERY", ` (as queries.${seen.get(id)})`);
    else seen.set(id, i);
  });
  return out;
}

export const evaluationSetView = z
  .object({
    tenant: z.string(),
    version: z.number().int(),
    queries: z.array(evaluationQuery),
    createdBy: z.string(),
    createdAt: z.iso.datetime(),
    /** Every version, newest first: who changed the set and when. */
    versions: z.array(
      z.object({
        version: z.number().int(),
        queryCount: z.number().int(),
        createdBy: z.string(),
        createdAt: z.iso.datetime(),
      }),
    ),
  })
  .meta({ id: "EvaluationSet" });
export type EvaluationSetView = z.infer<typeof evaluationSetView>;

export const newRunBody = z
  .object({
    /** An index space by name: the tenant's active one (default) or its open migration's shadow. */
    space: spaceName.optional(),
    mode: searchMode.optional(),
    /** Chunks each search asks for, as an application would (default 10). */
    topK: z.number().int().min(1).max(100).optional(),
  })
  .strict();
export type NewRunBody = z.infer<typeof newRunBody>;

export const runIdParam = z.string().regex(/^[1-9][0-9]{0,17}$/, "an evaluation run id is a positive integer");

export const DIAGNOSIS_STAGES = Object.freeze([
  "UNKNOWN",
  "DELETED",
  "NOT_SEARCHABLE",
  "NOT_BUILT",
  "ACL_EXCLUDED",
  "NO_SHARED_TERMS",
  "RANKED_LOW",
] as const);
export type DiagnosisStage = (typeof DIAGNOSIS_STAGES)[number];

export const diagnosis = z
  .object({
    stage: z.enum(DIAGNOSIS_STAGES),
    message: z.string(),
    /** NOT_SEARCHABLE: the document's state and its newest build. */
    state: z.string().optional(),
    task: z
      .object({
        taskId: z.string(),
        type: z.string(),
        status: z.string(),
        errorCode: z.string().nullable(),
        errorMessage: z.string().nullable(),
      })
      .nullable()
      .optional(),
    /** NOT_BUILT: the space searched. */
    space: z.string().optional(),
    /** ACL_EXCLUDED: whose view was searched, and the ACLs that leave them out (served and latest version). */
    principals: z.array(z.string()).optional(),
    acl: z.object({ served: z.array(z.string()), latest: z.array(z.string()) }).optional(),
    /** NO_SHARED_TERMS: the document's chunk nearest the query (by its vector). */
    closestChunk: z
      .object({
        chunkId: z.string(),
        sectionPath: z.string(),
        text: z.string(),
        similarity: z.number(),
      })
      .nullable()
      .optional(),
    /** RANKED_LOW: where it ranks (null: not within `depth` chunks), its score and the k-th document's. */
    rank: z.number().int().nullable().optional(),
    score: z.number().nullable().optional(),
    kthScore: z.number().nullable().optional(),
    depth: z.number().int().optional(),
  })
  .meta({ id: "EvaluationDiagnosis" });
export type Diagnosis = z.infer<typeof diagnosis>;

export const queryResult = z
  .object({
    index: z.number().int(),
    query: z.string(),
    principals: z.array(z.string()),
    graded: z.boolean(),
    relevant: z.array(
      z.object({
        key: z.string(),
        grade: z.number().int(),
        /** 1-based rank among the answer's documents (each ranked by its best chunk); null: not in the answer. */
        rank: z.number().int().nullable(),
        score: z.number().nullable(),
        /** Why it is not in the first 10 (null when it is, or when its grade is 0). */
        diagnosis: diagnosis.nullable(),
      }),
    ),
    /** The answer's documents, best first (at most 10). */
    answer: z.array(z.object({ key: z.string(), score: z.number() })),
    recall: z.number(),
    reciprocalRank: z.number(),
    ndcg: z.number(),
  })
  .meta({ id: "EvaluationQueryResult" });
export type QueryResult = z.infer<typeof queryResult>;

export const RUN_STATES = Object.freeze(["PENDING", "RUNNING", "DONE", "FAILED"] as const);
export type RunState = (typeof RUN_STATES)[number];

/**
 * Who asked for a run: `api` by hand (the API, the CLI, the dashboard), `gate` a switch's own
 * judgement of both spaces, `scheduled` the schedule (EVALUATION_SCHEDULE_MINUTES), `switch` queued
 * by a committed switch or switch-back against the space that then serves.
 */
export const RUN_TRIGGERS = Object.freeze(["api", "gate", "scheduled", "switch"] as const);
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export type QueryLoss = {
  index: number;
  query: string;
  active: number;
  candidate: number;
  /** Relevant documents the candidate ranks worse (or not at all within the first 10). */
  lost: { key: string; activeRank: number | null; candidateRank: number | null }[];
};

/** What a switch was judged on (the migration's `gate`, and the 409's details). */
export type GateVerdict =
  | { evaluated: false; reason: "NO_EVALUATION_SET" }
  | {
      evaluated: true;
      setVersion: number;
      mode: SearchMode;
      topK: number;
      tolerance: number;
      active: { space: string; runId: string; recallAt10: number; mrrAt10: number; ndcgAt10: number };
      candidate: { space: string; runId: string; recallAt10: number; mrrAt10: number; ndcgAt10: number };
      /** candidate − active nDCG@10. */
      delta: number;
      regressed: boolean;
      wins: number;
      losses: QueryLoss[];
    };

const figures = z.object({ recallAt10: z.number(), mrrAt10: z.number(), ndcgAt10: z.number() });
export type Figures = z.infer<typeof figures>;

export const runSummary = z
  .object({
    id: z.string(),
    tenant: z.string(),
    state: z.enum(RUN_STATES),
    trigger: z.enum(RUN_TRIGGERS),
    migrationId: z.string().nullable(),
    setVersion: z.number().int(),
    space: z.string(),
    mode: z.enum(SEARCH_MODES),
    topK: z.number().int(),
    progress: z.object({ done: z.number().int(), total: z.number().int() }),
    /** recall@10, MRR@10 and nDCG@10 (graded where the set grades), means over the queries; null until DONE. */
    figures: figures.nullable(),
    error: z.string().nullable(),
    requestedBy: z.string(),
    createdAt: z.iso.datetime(),
    startedAt: z.iso.datetime().nullable(),
    finishedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "EvaluationRunSummary" });
export type RunSummary = z.infer<typeof runSummary>;

export const runView = runSummary
  .extend({
    /** What the run used: the space (model, dimensions, chunker), active or shadow pointers, mode, topK, depth. */
    settings: z.record(z.string(), z.unknown()),
    /**
     * Per query, in the set's order; a query that searches as principals the reader may not search
     * as is `{index, hidden: true}` (docs/evaluation.md#trust). Null until DONE.
     */
    queries: z.array(z.union([queryResult, z.object({ index: z.number().int(), hidden: z.literal(true) })])).nullable(),
  })
  .meta({ id: "EvaluationRun" });
export type RunView = z.infer<typeof runView>;

export const whyBody = z
  .object({
    query: z.string().trim().min(1).max(4000).refine(readableText, TEXT_CONTROL),
    principals: z.array(principal).max(100).optional(),
    mode: searchMode.optional(),
    topK: z.number().int().min(1).max(100).optional(),
  })
  .strict();
export type WhyBody = z.infer<typeof whyBody>;

/** The same, as a GET's query string (principals comma-separated). */
export const whyQuery = z.object({
  query: z.string().trim().min(1).max(4000).refine(readableText, TEXT_CONTROL),
  principals: z
    .string()
    .max(20_000)
    .optional()
    .meta({ description: "Comma-separated principals whose view is searched (as in search's principals)." }),
  mode: searchMode.optional(),
  topK: z.coerce.number().int().min(1).max(100).optional(),
});

export const whyResult = z
  .object({
    tenant: z.string(),
    key: z.string(),
    query: z.string(),
    searchedAs: z.array(z.string()),
    space: z.string(),
    mode: z.enum(SEARCH_MODES),
    topK: z.number().int(),
    /** Rank among the answer's documents, or null. */
    rank: z.number().int().nullable(),
    found: z.boolean(),
    /** Null when the document is in the first 10 of the answer. */
    diagnosis: diagnosis.nullable(),
    answer: z.array(z.object({ key: z.string(), score: z.number() })),
  })
  .meta({ id: "WhyResult" });
export type WhyResult = z.infer<typeof whyResult>;

/** A switch's body: a reason, and `force` to switch over a regressed evaluation (then the reason is required). */
export const switchBody = z
  .object({
    reason: z.string().trim().min(1).max(500).optional(),
    force: z.boolean().optional(),
  })
  .strict()
  .refine((b) => !b.force || b.reason, { message: "a forced switch needs a reason", path: ["reason"] });
