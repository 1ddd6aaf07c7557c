// The freshness objective's bounds, shared by the configuration (lib/config.ts), the API's
// validation (./schemas.ts) and the dashboard's form. Plain data: the browser bundle reads it too.

/** Below this an "objective" promises nothing a reader would call freshness. */
export const OBJECTIVE_MIN = 0.5;
/**
 * An objective of 1 leaves no error budget (budget left would divide by zero), and past four nines a
 * 28-day window needs more than 10,000 publishes before one miss is not already the whole budget.
 */
export const OBJECTIVE_MAX = 0.9999;
/** Parsing, embedding and the switch take seconds: a target below this measures the embedder, not the queue. */
export const TARGET_MIN_SECONDS = 10;
/** A day: past that it is no freshness target, and the window's scan would have to reach that much further back. */
export const TARGET_MAX_SECONDS = 86_400;
export const WINDOW_MIN_DAYS = 1;
export const WINDOW_MAX_DAYS = 90;

export const DEFAULT_OBJECTIVE = 0.99;
export const DEFAULT_TARGET_SECONDS = 300;
export const DEFAULT_WINDOW_DAYS = 28;

/** The fleet-wide defaults a tenant without its own setting follows (lib/config.ts reads them). */
export type SloDefaults = { objective: number; targetSeconds: number; windowDays: number };

/**
 * What is left of the error budget: 1 - (bad/total) / (1 - objective). 1 = untouched, 0 = spent,
 * below 0 = overspent (kept, not clamped: how far over is what the reader needs). Null with no events.
 */
export function budgetRemaining(good: number, bad: number, objective: number): number | null {
  const total = good + bad;
  if (total === 0) return null;
  return 1 - bad / total / (1 - objective);
}

export function compliance(good: number, bad: number): number | null {
  const total = good + bad;
  return total === 0 ? null : good / total;
}
