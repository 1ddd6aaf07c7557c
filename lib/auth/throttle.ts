import { createHash } from "node:crypto";
import type pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { normalEmail } from "./users";

// Sign-in throttling that slows guessing without letting anyone lock an account for its owner.
// Counters live in PostgreSQL (table sign_in_limits, created by a migration), so every web process
// sees the same counts and a restart forgets nothing. Two limits, following rate-limiter-flexible's
// login-protection pattern:
//   - per account + address: FREE_ATTEMPTS failures in a row cost nothing; from then on, after each
//     failure the next attempt from that address waits 1 s, 2 s, 4 s … up to 15 minutes. A success
//     from that address clears it. Failures at other addresses never slow the owner down here.
//   - per address: FAILURES_PER_ADDRESS failures an hour, then the address waits ADDRESS_BLOCK_SECONDS;
//     password and token sign-ins both count, so spraying many accounts from one address is capped
//     too. Many people can share an address (an office, a carrier's NAT, a proxy), so one guesser
//     must not shut them all out for long: the block is short, and an account that signed in from
//     that address before (within KNOWN_PAIR_SECONDS) is still admitted, under its own pair limit.
// Attempts are counted when they are admitted, before the password is checked: checking first and
// counting after would let a burst of parallel requests all pass the check before the first failure
// is recorded. A success gives back the one point its own admission took, in the window that took
// it and never below zero (refundAddress): a refund handed to the next window would start it below
// zero, and a few dozen sign-ins held open across the hour's edge would then buy as many extra
// guesses at other accounts. A success clears only its own account + address pair.

export const FREE_ATTEMPTS = 5;
export const MAX_DELAY_SECONDS = 15 * 60;
export const FAILURES_PER_ADDRESS = 100;
const HOUR = 60 * 60;
const DAY = 24 * HOUR;
export const ADDRESS_BLOCK_SECONDS = 15 * 60;
const KNOWN_PAIR_SECONDS = 30 * DAY;
/** How long an account + address pair's unsuccessful attempts are remembered (from the first). */
const PAIR_MEMORY_SECONDS = DAY;
export const TABLE = "sign_in_limits";

/** Seconds the next attempt waits after the n-th attempt without a success failed (none within the free ones). */
export function delayAfter(attempt: number): number {
  if (attempt < FREE_ATTEMPTS) return 0;
  return Math.min(2 ** (attempt - FREE_ATTEMPTS), MAX_DELAY_SECONDS);
}

/**
 * The part of an address that one party controls. An IPv6 end site usually gets a whole /64, so
 * counting single IPv6 addresses would hand an attacker 2^64 fresh counters; IPv4 addresses are
 * counted one by one.
 */
export function addressBucket(address: string): string {
  if (!address.includes(":")) return address;
  const [head, tail = ""] = address.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

function pairKey(account: string, bucket: string): string {
  // Emails are up to 320 characters; a digest keeps keys short and addresses out of plain sight.
  return createHash("sha256")
    .update(`${normalEmail(account)}\n${bucket}`)
    .digest("base64url");
}

/**
 * RateLimiterPostgres names its statements ("sign_in_limits:rlflx-upsert"), and pg then prepares
 * each once per connection. Named statements belong to the database session, and the embedded
 * database (PGlite behind lib/db/pglite-server.ts) has a single session that every connection
 * shares: the second connection to prepare a name fails with 42P05 "prepared statement already
 * exists", and names outlive the connection that made them (PgBouncer in transaction mode behaves
 * the same). Sent unnamed, as every other query of ours is, they work on both.
 */
function unnamed(pool: pg.Pool) {
  return { query: (q: { text: string; values?: unknown[] }) => pool.query(q.text, q.values) };
}

export type Admission = { allowed: true; ticket: Ticket } | { allowed: false; retryAfterSeconds: number };

/** What an admitted attempt reserved; hand it back to `succeeded` or `failed`. */
export type Ticket = {
  address: string;
  pair: string | null;
  attempt: number;
  /** When the address window that counted this attempt ends (ms since the epoch, the limiter's clock). */
  addressWindowEnds: number;
};

const waitFor = (res: RateLimiterRes): Admission => ({
  allowed: false,
  retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
});

function rejection(err: unknown): RateLimiterRes {
  // The limiter rejects with a RateLimiterRes when over the limit and with an Error when the database failed.
  if (err instanceof RateLimiterRes) return err;
  throw err;
}

export class SignInThrottle {
  private readonly byAddress: RateLimiterPostgres;
  private readonly attempts: RateLimiterPostgres;
  private readonly gate: RateLimiterPostgres;
  private readonly known: RateLimiterPostgres;

  constructor(private readonly pool: pg.Pool) {
    const common = {
      storeClient: unnamed(pool),
      storeType: "pool",
      tableName: TABLE,
      tableCreated: true,
      clearExpiredByTimeout: false,
    };
    this.byAddress = new RateLimiterPostgres({
      ...common,
      keyPrefix: "signin-address",
      points: FAILURES_PER_ADDRESS,
      duration: HOUR,
      blockDuration: ADDRESS_BLOCK_SECONDS,
      // One limiter per process sweeps the shared table (rows expired over an hour ago, every 5 minutes).
      clearExpiredByTimeout: true,
    });
    // Counts attempts without a success; never rejects by itself (penalty), the gate does.
    this.attempts = new RateLimiterPostgres({
      ...common,
      keyPrefix: "signin-attempts",
      points: FREE_ATTEMPTS,
      duration: PAIR_MEMORY_SECONDS,
    });
    // Past the free attempts, one attempt at a time; a failure closes it for delayAfter(n) seconds.
    this.gate = new RateLimiterPostgres({ ...common, keyPrefix: "signin-gate", points: 1, duration: 1 });
    // Account + address pairs that signed in successfully; a row's presence is all that is read.
    this.known = new RateLimiterPostgres({
      ...common,
      keyPrefix: "signin-known",
      points: 1,
      duration: KNOWN_PAIR_SECONDS,
    });
  }

  /**
   * Admits one sign-in attempt from `address` (for `account`, or null for a token sign-in), or
   * says how long to wait. A refused attempt is not counted and must not check the password.
   */
  async admit(address: string, account: string | null): Promise<Admission> {
    const bucket = addressBucket(address);
    const pair = account === null ? null : pairKey(account, bucket);
    let addressWindowEnds = 0;
    try {
      const res = await this.byAddress.consume(bucket);
      addressWindowEnds = Date.now() + res.msBeforeNext;
    } catch (err) {
      const res = rejection(err);
      // Counted even when refused (the limiter adds before it compares), so a known pair let in
      // below has a point of its own to give back.
      addressWindowEnds = Date.now() + res.msBeforeNext;
      // Someone else's guessing from a shared address does not shut out a person who has signed in
      // from it before; their own pair limit below still applies.
      if (pair === null || !(await this.known.get(pair))) return waitFor(res);
    }
    if (pair === null) return { allowed: true, ticket: { address: bucket, pair: null, attempt: 0, addressWindowEnds } };
    const attempt = (await this.attempts.penalty(pair)).consumedPoints;
    if (attempt >= FREE_ATTEMPTS) {
      try {
        // From the last free attempt on, one attempt at a time: the window covers this attempt while
        // it runs (so a burst sent at once gets no further), and failed() extends it to the full delay.
        await this.gate.consume(pair, 1, { customDuration: Math.max(1, delayAfter(attempt)) });
      } catch (err) {
        const res = rejection(err);
        await Promise.all([this.attempts.reward(pair), this.byAddress.reward(bucket)]);
        return waitFor(res);
      }
    }
    return { allowed: true, ticket: { address: bucket, pair, attempt, addressWindowEnds } };
  }

  /**
   * Gives back the point this attempt's admission took at its address, only while that same window
   * lasts and never below zero. One statement on the limiter's own row (key, points, expire in ms)
   * rather than reward(), which adds -1 to whatever window is current, a fresh one included. A
   * later window ends at least FAILURES window lengths apart, so ±5 s tells the windows apart
   * whatever the clock drift between admit and now.
   */
  private async refundAddress(t: Ticket): Promise<void> {
    await this.pool.query(
      `UPDATE ${TABLE} SET points = points - 1
        WHERE key = $1 AND points > 0 AND expire > $2 AND expire BETWEEN $3::bigint - 5000 AND $3::bigint + 5000`,
      [`signin-address:${t.address}`, Date.now(), Math.round(t.addressWindowEnds)],
    );
  }

  /** The attempt signed in: its own address point is given back and its own pair starts afresh. */
  async succeeded(t: Ticket): Promise<void> {
    await Promise.all([
      this.refundAddress(t),
      t.pair ? this.attempts.delete(t.pair) : null,
      t.pair ? this.gate.delete(t.pair) : null,
      t.pair ? this.known.set(t.pair, 1, KNOWN_PAIR_SECONDS) : null,
    ]);
  }

  /** The attempt failed: past the free ones, the pair's next attempt waits. */
  async failed(t: Ticket): Promise<void> {
    const wait = delayAfter(t.attempt);
    if (t.pair && wait > 0) await this.gate.block(t.pair, wait);
  }
}

const throttles = new WeakMap<pg.Pool, SignInThrottle>();

/** One throttle per pool (per process): the limiters hold no state of their own beyond the sweep timer. */
export function signInThrottle(pool: pg.Pool): SignInThrottle {
  let t = throttles.get(pool);
  if (!t) throttles.set(pool, (t = new SignInThrottle(pool)));
  return t;
}
