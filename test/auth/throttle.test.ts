import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createTestDb, type TestDb, extraPool } from "../helpers/db";
import {
  SignInThrottle,
  addressBucket,
  delayAfter,
  ADDRESS_BLOCK_SECONDS,
  FAILURES_PER_ADDRESS,
  FREE_ATTEMPTS,
  type Admission,
  type Ticket,
} from "../../lib/auth/throttle";

// Sign-in throttling kept in PostgreSQL: two pools stand for two web processes, which must see
// the same counts. Failures are recorded as the route records them (admit, then failed/succeeded).

let t: TestDb;
let other: pg.Pool;
let a: SignInThrottle;
let b: SignInThrottle;
beforeAll(async () => {
  t = await createTestDb();
  other = extraPool(t.url, { max: 4 });
  a = new SignInThrottle(t.pool);
  b = new SignInThrottle(other);
});
afterAll(async () => {
  await other?.end();
  await t?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ticketOf(adm: Admission): Ticket {
  if (!adm.allowed)
    throw new Error(`expected the attempt to be admitted, it was told to wait ${adm.retryAfterSeconds} s`);
  return adm.ticket;
}

/** An admitted attempt that fails; returns its attempt number. */
async function fail(th: SignInThrottle, address: string, account: string | null): Promise<number> {
  const ticket = ticketOf(await th.admit(address, account));
  await th.failed(ticket);
  return ticket.attempt;
}

describe("delays", () => {
  it("the first failures are free, then 1 s, 2 s, 4 s … capped at 15 minutes", () => {
    expect([1, 2, 3, 4].map(delayAfter)).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9].map(delayAfter)).toEqual([1, 2, 4, 8, 16]);
    expect(delayAfter(14)).toBe(512);
    expect(delayAfter(15)).toBe(900);
    expect(delayAfter(60)).toBe(900);
  });

  it("IPv6 addresses are counted per /64, IPv4 per address", () => {
    expect(addressBucket("198.51.100.7")).toBe("198.51.100.7");
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
    expect(addressBucket("unknown")).toBe("unknown");
  });
});

describe("per account and address", () => {
  it("is shared between processes: failures through one pool slow the other", async () => {
    const who = "shared@example.com";
    for (let i = 0; i < FREE_ATTEMPTS; i++) await fail(i % 2 ? a : b, "10.1.0.1", who);
    const blockedA = await a.admit("10.1.0.1", who);
    const blockedB = await b.admit("10.1.0.1", who);
    expect(blockedA).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(blockedB).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("slows down instead of locking out: the waits double, Retry-After says how long", async () => {
    const who = "slow@example.com";
    const at = "10.1.0.2";
    for (let i = 1; i <= FREE_ATTEMPTS; i++) expect(await fail(a, at, who)).toBe(i);
    // After the 5th failure: 1 s.
    expect(await a.admit(at, who)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    await sleep(1100);
    expect(await fail(a, at, who)).toBe(6);
    // After the 6th: 2 s, and a refused attempt is not counted (the next admitted one is the 7th).
    expect(await b.admit(at, who)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    await sleep(1000);
    const mid = await b.admit(at, who);
    expect(mid.allowed).toBe(false);
    await sleep(1100);
    expect(await fail(b, at, who)).toBe(7);
    expect(await a.admit(at, who)).toEqual({ allowed: false, retryAfterSeconds: 4 });
  }, 20_000);

  it("failures at other addresses do not slow the owner down at theirs", async () => {
    const who = "owner@example.com";
    for (let i = 0; i < FREE_ATTEMPTS + 2; i++) {
      const adm = await a.admit("203.0.113.50", who);
      if (adm.allowed) await a.failed(adm.ticket);
    }
    expect((await a.admit("203.0.113.50", who)).allowed).toBe(false);
    const owner = ticketOf(await b.admit("198.51.100.20", who));
    expect(owner.attempt).toBe(1);
    await b.succeeded(owner);
  });

  it("a success clears the pair: the free attempts are back", async () => {
    const who = "reset@example.com";
    const at = "10.1.0.3";
    for (let i = 0; i < FREE_ATTEMPTS - 1; i++) await fail(a, at, who);
    const ok = ticketOf(await a.admit(at, who));
    expect(ok.attempt).toBe(FREE_ATTEMPTS);
    await a.succeeded(ok);
    for (let i = 1; i <= FREE_ATTEMPTS; i++) expect(await fail(b, at, who)).toBe(i);
    expect((await b.admit(at, who)).allowed).toBe(false);
  });

  it("an account's spelling does not matter", async () => {
    for (let i = 0; i < FREE_ATTEMPTS; i++)
      await fail(a, "10.1.0.4", i % 2 ? "Case@Example.com" : " case@example.com ");
    expect((await a.admit("10.1.0.4", "CASE@EXAMPLE.COM")).allowed).toBe(false);
  });

  it("a burst sent at once gets no more than the free attempts", async () => {
    const all = await Promise.all(Array.from({ length: 30 }, () => a.admit("10.1.0.5", "burst@example.com")));
    expect(all.filter((x) => x.allowed)).toHaveLength(FREE_ATTEMPTS);
    // The refused ones were given back: only the admitted ones count.
    const { rows } = await t.pool.query(`SELECT points FROM sign_in_limits WHERE key = 'signin-address:10.1.0.5'`);
    expect(rows[0].points).toBe(FREE_ATTEMPTS);
  });

  it("addresses in one IPv6 /64 share their counts", async () => {
    for (let i = 0; i < FREE_ATTEMPTS; i++) await fail(a, `2001:db8:7:7::${i + 1}`, "v6@example.com");
    expect((await a.admit("2001:db8:7:7:ffff::1", "v6@example.com")).allowed).toBe(false);
    expect((await a.admit("2001:db8:7:8::1", "v6@example.com")).allowed).toBe(true);
  });
});

describe("per address", () => {
  it(`after ${FAILURES_PER_ADDRESS} failures in an hour an address waits ${ADDRESS_BLOCK_SECONDS / 60} minutes, password and token sign-ins alike`, async () => {
    const at = "10.2.0.1";
    // Spread over many accounts (spraying), so no account + address pair is slowed first.
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++)
      await fail(i % 2 ? a : b, at, i % 3 === 0 ? null : `spray${i}@example.com`);
    const tokenTry = await a.admit(at, null);
    const passwordTry = await b.admit(at, "fresh@example.com");
    for (const r of [tokenTry, passwordTry]) {
      expect(r.allowed).toBe(false);
      if (!r.allowed) expect(r.retryAfterSeconds).toBeGreaterThan(ADDRESS_BLOCK_SECONDS - 60);
      if (!r.allowed) expect(r.retryAfterSeconds).toBeLessThanOrEqual(ADDRESS_BLOCK_SECONDS);
    }
    expect((await a.admit("10.2.0.2", "fresh@example.com")).allowed).toBe(true);
  }, 30_000);

  it("a blocked shared address still admits a person who signed in from it before, under their own pair limit", async () => {
    const at = "10.2.0.9";
    await a.succeeded(ticketOf(await a.admit(at, "regular@example.com")));
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await fail(i % 2 ? a : b, at, `spray${i}@example.com`);
    expect((await a.admit(at, "stranger@example.com")).allowed).toBe(false);
    expect((await a.admit(at, null)).allowed).toBe(false);
    const regular = await b.admit(at, "REGULAR@example.com ");
    expect(regular.allowed).toBe(true);
    // Their pair is still limited: guessing their password from there slows down as usual.
    await a.failed(ticketOf(regular));
    for (let i = 1; i < FREE_ATTEMPTS; i++) await fail(a, at, "regular@example.com");
    expect((await a.admit(at, "regular@example.com")).allowed).toBe(false);
  }, 30_000);

  it("successes give their point back, so busy shared addresses are not capped", async () => {
    for (let i = 0; i < FAILURES_PER_ADDRESS + 20; i++) {
      const ticket = ticketOf(await a.admit("10.2.0.3", i % 2 ? null : `user${i % 7}@example.com`));
      await a.succeeded(ticket);
    }
    const { rows } = await t.pool.query(`SELECT points FROM sign_in_limits WHERE key = 'signin-address:10.2.0.3'`);
    expect(rows[0].points).toBe(0);
  }, 30_000);
});

describe("a success refunds only its own attempt", () => {
  it("a holder of one valid account cannot spray other accounts past the address cap by signing in between guesses", async () => {
    const at = "10.2.0.20";
    await a.succeeded(ticketOf(await a.admit(at, "holder@example.com")));
    let sprays = 0;
    for (let i = 0; i < FAILURES_PER_ADDRESS * 2; i++) {
      const guess = await a.admit(at, `victim${i}@example.com`);
      if (guess.allowed) {
        sprays++;
        await a.failed(guess.ticket);
      }
      const own = await b.admit(at, "holder@example.com");
      if (own.allowed) await b.succeeded(own.ticket);
    }
    expect(sprays).toBeLessThanOrEqual(FAILURES_PER_ADDRESS);
    const { rows } = await t.pool.query(`SELECT points FROM sign_in_limits WHERE key = $1`, [`signin-address:${at}`]);
    expect(rows[0].points).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it("a success held open across the hour's edge refunds nothing into the next window (no guesses bought for later)", async () => {
    const at = "10.2.0.22";
    const held = await Promise.all(Array.from({ length: 10 }, (_, i) => a.admit(at, `holder-edge${i}@example.com`)));
    // The hour ends while those sign-ins are still checking their passwords.
    await t.pool.query(`UPDATE sign_in_limits SET expire = 1 WHERE key = $1`, [`signin-address:${at}`]);
    for (const h of held) await a.succeeded(ticketOf(h));
    let sprays = 0;
    for (let i = 0; i < FAILURES_PER_ADDRESS + 10; i++) {
      const guess = await b.admit(at, `edge${i}@example.com`);
      if (guess.allowed) {
        sprays++;
        await b.failed(guess.ticket);
      }
    }
    expect(sprays).toBe(FAILURES_PER_ADDRESS);
  }, 60_000);

  it("a success resets its own account's counter, not another account's at the same address", async () => {
    const at = "10.2.0.21";
    for (let i = 0; i < FREE_ATTEMPTS; i++) await fail(a, at, "guessed@example.com");
    await a.succeeded(ticketOf(await a.admit(at, "neighbour@example.com")));
    expect((await a.admit(at, "guessed@example.com")).allowed).toBe(false);
  });
});

describe("storage", () => {
  it("keys hold no email or address in clear, and every row expires", async () => {
    const { rows } = await t.pool.query<{ key: string; expire: string | null }>(
      `SELECT key, expire FROM sign_in_limits`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.key).not.toMatch(/@/);
      expect(r.expire).not.toBeNull();
    }
  });
});
