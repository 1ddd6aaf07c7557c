import { z } from "zod";

/**
 * The overview's time ranges. Each has its bucket: throughput is counted per bucket and shown as
 * tasks per minute, and the backlog history is thinned to the newest snapshot per bucket when
 * the range holds more snapshots than a chart can show (one a minute for a week is 10,080).
 */
export const ACTIVITY_RANGES = {
  "1h": { label: "1 h", seconds: 3_600, bucketSeconds: 60 },
  "24h": { label: "24 h", seconds: 86_400, bucketSeconds: 900 },
  "7d": { label: "7 d", seconds: 604_800, bucketSeconds: 7_200 },
} as const;
export type ActivityRange = keyof typeof ACTIVITY_RANGES;
export const ACTIVITY_RANGE_LIST = Object.keys(ACTIVITY_RANGES) as ActivityRange[];
export const DEFAULT_RANGE: ActivityRange = "24h";

export const activityQuery = z
  .object({ range: z.enum(ACTIVITY_RANGE_LIST as [ActivityRange, ...ActivityRange[]]).default(DEFAULT_RANGE) })
  .strict();

/** The outcomes a finished task ends in, each a series of the throughput chart. */
export const OUTCOMES = ["SUCCEEDED", "DEAD", "RESOLVED", "SUPERSEDED"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export function isActivityRange(v: unknown): v is ActivityRange {
  return typeof v === "string" && v in ACTIVITY_RANGES;
}
