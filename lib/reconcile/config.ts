import { z } from "zod";
import { parseEnv } from "../config";

// The reconciler's knobs live here rather than in lib/config.ts so the worker's core configuration
// does not grow with every maintenance job; parsing and error messages follow the same rules.
const num = (def: number, min = 0) => z.coerce.number().min(min).default(def);
const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

const schema = z.object({
  /** Seconds between passes across the whole fleet; 0 turns the reconciler off. */
  RECONCILE_INTERVAL_SECONDS: num(30, 0),
  /** A document drifted for longer than this (since its business version was published) is stale. */
  RECONCILE_DRIFT_SECONDS: num(300, 0),
  /** A RUNNING task whose lease expired longer ago than this has not been taken over by any claim. */
  RECONCILE_LEASE_GRACE_SECONDS: num(60, 0),
  /** Repairs per kind per pass; the rest wait for the next pass (SKIPPED_CAP). 0 = report only. */
  RECONCILE_MAX_REPAIRS: int(100, 0),
  /** Findings read per kind per pass, so a pass stays short however much is wrong. */
  RECONCILE_SCAN_LIMIT: int(1000, 1),
  /** anomaly_events and reconcile_passes older than this are pruned. */
  RECONCILE_EVENT_RETENTION_DAYS: num(30, 1),
});

export type ReconcileConfig = z.infer<typeof schema>;

export function loadReconcileConfig(env: Record<string, string | undefined> = process.env): ReconcileConfig {
  return parseEnv(schema, env);
}
