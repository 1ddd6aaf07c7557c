// The freshness SLO's API shapes (docs/operations.md#freshness-slo): the route handlers parse with
// them, the OpenAPI document is drawn from them, the dashboard's form sends them.
import { z } from "zod";
import { OBJECTIVE_MAX, OBJECTIVE_MIN, TARGET_MAX_SECONDS, TARGET_MIN_SECONDS } from "./limits";

/**
 * A tenant's own objective and target; null returns that part to the fleet's default
 * (SLO_FRESHNESS_OBJECTIVE, SLO_FRESHNESS_TARGET_SECONDS), an absent field leaves it as it is. The
 * shape only says "a number or null": the ranges are problems with codes of their own (below), so a
 * form can say which field is wrong and why.
 */
export const sloBody = z
  .object({
    objective: z
      .number()
      .nullable()
      .optional()
      .meta({
        description: `Share of publishes that must be searchable within the target, ${OBJECTIVE_MIN}–${OBJECTIVE_MAX} (0.99 = 99 %); null: the default.`,
      }),
    targetSeconds: z
      .number()
      .nullable()
      .optional()
      .meta({
        description: `Seconds from publish to searchable, a whole number ${TARGET_MIN_SECONDS}–${TARGET_MAX_SECONDS}; null: the default.`,
      }),
  })
  .strict()
  .meta({ id: "FreshnessSloBody" });
export type SloBody = z.infer<typeof sloBody>;

/** Every problem the shape cannot express, each with its stable code; all are reported at once (400 SLO_INVALID, details.problems) and nothing is written. */
export const SLO_PROBLEMS = Object.freeze({
  NOTHING_TO_SET: "give objective, targetSeconds or both (null returns one to the default)",
  OBJECTIVE_OUT_OF_RANGE: `objective must be from ${OBJECTIVE_MIN} to ${OBJECTIVE_MAX} (a ratio: 0.99 is 99 %)`,
  TARGET_NOT_WHOLE: "targetSeconds must be a whole number of seconds",
  TARGET_OUT_OF_RANGE: `targetSeconds must be from ${TARGET_MIN_SECONDS} to ${TARGET_MAX_SECONDS}`,
});
export type SloProblemCode = keyof typeof SLO_PROBLEMS;
export type SloProblem = { field: "objective" | "targetSeconds" | null; code: SloProblemCode; message: string };

export function sloProblems(body: SloBody): SloProblem[] {
  const out: SloProblem[] = [];
  const add = (field: SloProblem["field"], code: SloProblemCode) =>
    out.push({ field, code, message: `${field ? `${field}: ` : ""}${SLO_PROBLEMS[code]}` });
  if (body.objective === undefined && body.targetSeconds === undefined) add(null, "NOTHING_TO_SET");
  const o = body.objective;
  if (typeof o === "number" && !(o >= OBJECTIVE_MIN && o <= OBJECTIVE_MAX)) add("objective", "OBJECTIVE_OUT_OF_RANGE");
  const t = body.targetSeconds;
  if (typeof t === "number" && !Number.isInteger(t)) add("targetSeconds", "TARGET_NOT_WHOLE");
  else if (typeof t === "number" && !(t >= TARGET_MIN_SECONDS && t <= TARGET_MAX_SECONDS))
    add("targetSeconds", "TARGET_OUT_OF_RANGE");
  return out;
}

const figures = {
  objective: z.number().meta({ description: "The objective in force: the tenant's own, else the default." }),
  targetSeconds: z.number().int(),
  windowDays: z.number().int(),
  /** Which of objective and target are the tenant's own (the rest follow the defaults). */
  custom: z.object({ objective: z.boolean(), targetSeconds: z.boolean() }),
  good: z.number().int().meta({ description: "Publishes searchable within the target, decided in the window." }),
  bad: z
    .number()
    .int()
    .meta({ description: "Publishes that missed the target (late, failed, or still unfinished past it)." }),
  pending: z.number().int().meta({ description: "Publishes still unfinished within their target: not decided yet." }),
  compliance: z.number().nullable().meta({ description: "good / (good + bad); null with no decided publish." }),
  budgetRemaining: z.number().nullable().meta({
    description:
      "1 - (bad / total) / (1 - objective): 1 untouched, 0 spent, below 0 overspent; null with no decided publish.",
  }),
};

export const tenantSloSummary = z.object({ tenant: z.string(), ...figures }).meta({ id: "FreshnessSloSummary" });
export type TenantSloSummary = z.infer<typeof tenantSloSummary>;

export const tenantSloView = z
  .object({
    tenant: z.string(),
    ...figures,
    /** Decided publishes per UTC day of the window, oldest first; a day without any has good = bad = 0. */
    days: z.array(
      z.object({ day: z.string(), good: z.number().int(), bad: z.number().int(), compliance: z.number().nullable() }),
    ),
    generatedAt: z.string(),
  })
  .meta({ id: "FreshnessSloView" });
export type TenantSloView = z.infer<typeof tenantSloView>;

export const sloList = z
  .object({
    /** Worst first: least budget left (overspent first), then tenants without decided publishes, by id. */
    items: z.array(tenantSloSummary),
    defaults: z.object({ objective: z.number(), targetSeconds: z.number().int(), windowDays: z.number().int() }),
    generatedAt: z.string(),
  })
  .meta({ id: "FreshnessSloList" });
export type SloList = z.infer<typeof sloList>;
