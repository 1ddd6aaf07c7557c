import { randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import pLimit from "p-limit";
import { ApiError } from "../http/errors";

type Params = { N: number; r: number; p: number };
const rawScrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: Params & { maxmem: number },
) => Promise<Buffer>;

/**
 * Hashing is the one expensive thing anonymous callers can make us do (~0.3 s of CPU each), and it
 * shares Node's four-thread pool with file and DNS work. At most HASH_CONCURRENCY run at once and
 * HASH_QUEUE wait; beyond that a caller gets 503 HASHING_BUSY with Retry-After at once, rather than
 * every sign-in (and the rest of the process) slowing down together.
 *
 * The places are shared fairly: one account, or one address, holds at most HASH_PER_CALLER of them
 * (running or waiting). Without that, ~40 parallel sign-ins of one account filled the queue and
 * everyone else got 503; now that caller's own surplus is refused and the rest keep their turn.
 */
export const HASH_CONCURRENCY = 2;
export const HASH_QUEUE = 32;
export const HASH_PER_CALLER = 4;

export type HashGate = <T>(task: () => Promise<T>, callers?: readonly string[]) => Promise<T>;

/**
 * Runs at most `concurrency` tasks at once with up to `queue` waiting, and at most `perCaller` of
 * them for any one caller key (an account, an address); refuses the rest at once.
 */
export function hashGate(concurrency: number, queue: number, perCaller = Infinity): HashGate {
  const limit = pLimit(concurrency);
  const held = new Map<string, number>();
  return (task, callers = []) => {
    if (limit.pendingCount >= queue || callers.some((c) => (held.get(c) ?? 0) >= perCaller)) {
      return Promise.reject(new ApiError("HASHING_BUSY", "too many sign-ins at once; try again in a few seconds"));
    }
    for (const c of callers) held.set(c, (held.get(c) ?? 0) + 1);
    return limit(task).finally(() => {
      for (const c of callers) {
        const n = (held.get(c) ?? 1) - 1;
        if (n > 0) held.set(c, n);
        else held.delete(c);
      }
    });
  };
}

const gate = hashGate(HASH_CONCURRENCY, HASH_QUEUE, HASH_PER_CALLER);
function scrypt(
  pw: string,
  salt: Buffer,
  len: number,
  opts: Params & { maxmem: number },
  callers?: readonly string[],
): Promise<Buffer> {
  return gate(() => rawScrypt(pw, salt, len, opts), callers);
}

/**
 * OWASP's scrypt setting N=2^14, r=8, p=5 (the cheat sheet lists it as equivalent to N=2^17, r=8,
 * p=1): 16 MiB per hash instead of 128 MiB, paid for with more CPU. Sign-in is open to anyone, and
 * every attempt (unknown accounts included) costs one hash in the web process, next to the worker
 * and usually the embedded database on the same machine; four hashes at once (the size of Node's
 * crypto thread pool) then hold 64 MiB rather than half a gigabyte.
 */
export const CURRENT: Readonly<Params> = { N: 2 ** 14, r: 8, p: 5 };
// Room for the current setting and for older ones, and a bound on what a tampered row can make us allocate.
const MAX_MEM = 64 * 1024 * 1024;
const KEY_LEN = 32;
const DUMMY_SALT = Buffer.alloc(16);

/** scrypt$N$r$p$salt$hash (base64url): the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LEN, { ...CURRENT, maxmem: MAX_MEM });
  return `scrypt$${CURRENT.N}$${CURRENT.r}$${CURRENT.p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Cheaper than the current setting in memory (128·N·r) or in work (N·r·p): worth hashing again. */
function weaker(s: Params): boolean {
  return s.N * s.r < CURRENT.N * CURRENT.r || s.N * s.r * s.p < CURRENT.N * CURRENT.r * CURRENT.p;
}

function parse(stored: string | null): { params: Params; salt: Buffer; hash: Buffer } | null {
  const parts = stored?.split("$");
  if (!parts || parts.length !== 6 || parts[0] !== "scrypt" || !parts.slice(1, 4).every((x) => /^\d{1,8}$/.test(x)))
    return null;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const powerOfTwo = N > 1 && (N & (N - 1)) === 0;
  if (!powerOfTwo || r < 1 || p < 1 || p > 16 || 128 * N * r > MAX_MEM) return null;
  const hash = Buffer.from(parts[5], "base64url");
  if (hash.length < 16) return null;
  return { params: { N, r, p }, salt: Buffer.from(parts[4], "base64url"), hash };
}

export type Verification = {
  ok: boolean;
  /** The password matched a hash made with a weaker setting than CURRENT: store hashPassword()'s result. */
  needsRehash: boolean;
};

/** `callers`: the keys this check is fairly shared by (the account and the client address). */
export async function verifyPassword(
  password: string,
  stored: string | null,
  callers?: readonly string[],
): Promise<Verification> {
  const s = parse(stored);
  if (!s) {
    // No usable hash (unknown user, SSO-only account): the same work as a real check at the
    // current setting, so such accounts cannot be told apart by timing.
    await scrypt(password, DUMMY_SALT, KEY_LEN, { ...CURRENT, maxmem: MAX_MEM }, callers);
    return { ok: false, needsRehash: false };
  }
  const actual = await scrypt(password, s.salt, s.hash.length, { ...s.params, maxmem: MAX_MEM }, callers);
  const ok = actual.length === s.hash.length && timingSafeEqual(actual, s.hash);
  return { ok, needsRehash: ok && weaker(s.params) };
}

export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
