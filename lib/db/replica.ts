import type pg from "pg";
import { loadConfig, setting } from "../config";
import { getPool } from "./pool";
import { forgetWrites, lastWrite } from "./recent-writes";

// Reads that may go to a streaming replica (DATABASE_READ_URL): the dashboard's GETs and search.
// Two rules bound what a reader can see there (docs/decisions/041-read-replica.md):
// - staleness: while the replica is more than REPLICA_MAX_LAG_SECONDS behind, or cannot be asked,
//   every read goes to the primary;
// - read-your-writes: a caller who wrote carries the primary's WAL position of that write (the
//   `Indexwright-Lsn` response header, the `iw_lsn` cookie, or this process's memory of the caller);
//   its reads wait up to READ_YOUR_WRITES_WAIT_MS for the replica to replay that far, else read the
//   primary. Nothing that reads the replica ever writes.

export type ReadSource = "primary" | "replica";

/** What the dashboard shows about where reads go. */
export type ReplicaStatus = {
  /** Whether DATABASE_READ_URL is set. */
  configured: boolean;
  /** Where a read with no write of its own to wait for goes right now. */
  servingReads: ReadSource;
  /** Upper bound of how old the replica's view is (0: it had replayed all the primary had written when last asked). */
  lagSeconds: number | null;
  /** WAL the replica had not replayed when last asked. */
  lagBytes: number | null;
  maxLagSeconds: number;
  /** Why reads are on the primary although a replica is configured. */
  reason: string | null;
  sampledAt: string | null;
};

export const LSN_HEADER = "indexwright-lsn";
export const MIN_LSN_HEADER = "indexwright-min-lsn";
export const READ_FROM_HEADER = "indexwright-read-from";
export const LSN_COOKIE = "iw_lsn";

const LSN_PATTERN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i;

/** A WAL position ("16/B374D848") as a number that orders as PostgreSQL's pg_lsn does; null if it is not one. */
export function parseLsn(text: string | null | undefined): bigint | null {
  if (!text || !LSN_PATTERN.test(text)) return null;
  const [hi, lo] = text.split("/");
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export function replicaUrl(): string | null {
  const url = setting("DATABASE_READ_URL");
  return url ? url : null;
}

function limits() {
  const cfg = loadConfig();
  return { maxLagSeconds: cfg.REPLICA_MAX_LAG_SECONDS, waitMs: cfg.READ_YOUR_WRITES_WAIT_MS };
}

export function replicaPool(): pg.Pool | null {
  const url = replicaUrl();
  return url ? getPool(url) : null;
}

/** The primary's current WAL write position: every transaction committed before it asks is at or before it. */
export async function primaryLsn(primary: pg.Pool = getPool()): Promise<bigint> {
  const { rows } = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
  return parseLsn(rows[0].lsn) as bigint;
}

/** How far the replica has replayed; null if it is not in recovery (a promoted replica is no replica). */
async function replayLsn(replica: pg.Pool): Promise<bigint | null> {
  const { rows } = await replica.query<{ lsn: string | null }>(
    "SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()::text END AS lsn",
  );
  return parseLsn(rows[0].lsn);
}

/** replayLsn, and the primary's commit time (ms) of the last transaction replayed. */
async function replayPosition(replica: pg.Pool): Promise<{ lsn: bigint | null; lastCommitAt: number | null }> {
  const { rows } = await replica.query<{ lsn: string | null; at: number | null; recovery: boolean }>(
    "SELECT pg_last_wal_replay_lsn()::text AS lsn, (extract(epoch FROM pg_last_xact_replay_timestamp()) * 1000)::float8 AS at, pg_is_in_recovery() AS recovery",
  );
  // A promoted replica still reports the last position it replayed, but writes of its own follow:
  // it no longer follows this primary.
  if (!rows[0].recovery) return { lsn: null, lastCommitAt: null };
  return { lsn: parseLsn(rows[0].lsn), lastCommitAt: rows[0].at === null ? null : Number(rows[0].at) };
}

// Samples of the primary's position, oldest first, each with when it was read. Two upper bounds of
// how old the replica's view is, and the lower one is reported:
// - the newest sample the replica has replayed, taken at t: everything the primary had committed by
//   t is there, so the view is at most (now − t) old (tight on an idle primary: the sample just
//   taken is replayed, 0);
// - the commit time of the last transaction the replica replayed, c: the view is at most (now − c)
//   old (tight on a busy primary, whose commits keep coming).
// Taken at most once per SAMPLE_MS, when a read asks.
type Sample = { at: number; lsn: bigint };
const SAMPLE_MS = 500;
const KEEP_SAMPLES = 1200;
let samples: Sample[] = [];
let status: ReplicaStatus | null = null;
let sampling: Promise<ReplicaStatus> | null = null;

function lagOf(replayed: bigint, lastCommitAt: number | null, now: number): number | null {
  let bound: number | null = lastCommitAt === null ? null : Math.max(0, now - lastCommitAt);
  for (let i = samples.length - 1; i >= 0; i--)
    if (samples[i].lsn <= replayed) {
      const bySample = i === samples.length - 1 ? 0 : now - samples[i].at;
      bound = bound === null ? bySample : Math.min(bound, bySample);
      break;
    }
  return bound === null ? null : bound / 1000;
}

async function sample(replica: pg.Pool): Promise<ReplicaStatus> {
  const { maxLagSeconds } = limits();
  const base = { configured: true, maxLagSeconds, sampledAt: new Date().toISOString() };
  try {
    const at = Date.now();
    const lsn = await primaryLsn();
    samples.push({ at, lsn });
    if (samples.length > KEEP_SAMPLES) samples = samples.slice(-KEEP_SAMPLES);
    const { lsn: replayed, lastCommitAt } = await replayPosition(replica);
    if (replayed === null)
      return {
        ...base,
        servingReads: "primary",
        lagSeconds: null,
        lagBytes: null,
        reason: "DATABASE_READ_URL is not a replica in recovery",
      };
    const lagSeconds = lagOf(replayed, lastCommitAt, Date.now());
    const lagBytes = Number(lsn > replayed ? lsn - replayed : 0n);
    const behind = lagSeconds === null || lagSeconds > maxLagSeconds;
    return {
      ...base,
      servingReads: behind ? "primary" : "replica",
      lagSeconds,
      lagBytes,
      reason: behind ? `the replica is more than ${maxLagSeconds} s behind the primary` : null,
    };
  } catch (err) {
    return {
      ...base,
      servingReads: "primary",
      lagSeconds: null,
      lagBytes: null,
      reason: `the replica did not answer: ${(err as Error).message}`,
    };
  }
}

/** Where reads go and how far behind the replica is, sampled at most every half second. */
export async function replicaStatus(): Promise<ReplicaStatus> {
  const replica = replicaPool();
  if (!replica)
    return {
      configured: false,
      servingReads: "primary",
      lagSeconds: null,
      lagBytes: null,
      maxLagSeconds: limits().maxLagSeconds,
      reason: null,
      sampledAt: null,
    };
  if (status && Date.now() - Date.parse(status.sampledAt as string) < SAMPLE_MS) return status;
  sampling ??= sample(replica).finally(() => (sampling = null));
  status = await sampling;
  return status;
}

function cookieLsn(req: Request): bigint | null {
  const cookies = req.headers.get("cookie");
  if (!cookies) return null;
  for (const part of cookies.split(";")) {
    const [name, value] = part.trim().split("=");
    if (name === LSN_COOKIE) return parseLsn(decodeURIComponent(value ?? ""));
  }
  return null;
}

/** The WAL position a read by this caller must see: the latest of what it says and what this process remembers. */
export function requiredLsn(req: Request, subject: string): bigint | null {
  let need: bigint | null = null;
  for (const lsn of [parseLsn(req.headers.get(MIN_LSN_HEADER)), cookieLsn(req), lastWrite(subject)?.lsn ?? null])
    if (lsn !== null && (need === null || lsn > need)) need = lsn;
  return need;
}

export type ReadChoice = { source: ReadSource; pool: pg.Pool };

/**
 * The pool a read goes to. With no replica, the primary. Otherwise the replica, unless it is too
 * far behind (or not answering), or the caller's last write is not replayed there within the wait.
 */
export async function chooseReadPool(need: bigint | null): Promise<ReadChoice> {
  const primary = getPool();
  const replica = replicaPool();
  if (!replica) return { source: "primary", pool: primary };
  const s = await replicaStatus();
  if (s.servingReads === "primary") return { source: "primary", pool: primary };
  if (need === null) return { source: "replica", pool: replica };
  const deadline = Date.now() + limits().waitMs;
  for (;;) {
    let replayed: bigint | null;
    try {
      replayed = await replayLsn(replica);
    } catch {
      return { source: "primary", pool: primary };
    }
    if (replayed !== null && replayed >= need) return { source: "replica", pool: replica };
    if (replayed === null || Date.now() >= deadline) return { source: "primary", pool: primary };
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Test seam: forget samples, status and remembered writes. */
export function resetReplicaState(): void {
  samples = [];
  status = null;
  sampling = null;
  forgetWrites();
}
