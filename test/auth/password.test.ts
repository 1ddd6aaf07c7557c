import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes, randomUUID, scryptSync } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { legacyHash } from "../helpers/legacy-hash";
import {
  CURRENT,
  HASH_CONCURRENCY,
  HASH_PER_CALLER,
  HASH_QUEUE,
  hashGate,
  hashPassword,
  verifyPassword,
} from "../../lib/auth/password";
import { identityForPassword, rehash } from "../../lib/auth/users";

// Password hashes carry their scrypt setting; a sign-in that matches an older, weaker one stores a
// hash at the current setting, once, and never over a password changed in the meantime.

/** Median times of several checks, measured in turns so a busy machine slows each of them alike. */
async function medians(fns: (() => Promise<unknown>)[], rounds = 7): Promise<number[]> {
  const times: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, fn] of fns.entries()) {
      const t0 = performance.now();
      await fn();
      times[i].push(performance.now() - t0);
    }
  }
  return times.map((ts) => ts.sort((x, y) => x - y)[Math.floor(rounds / 2)]);
}

describe("hashing and verifying", () => {
  it("hashes at the current setting, OWASP's N=2^14 r=8 p=5", async () => {
    expect(CURRENT).toEqual({ N: 16384, r: 8, p: 5 });
    const h = await hashPassword("correct horse");
    expect(h).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword("correct horse", h)).toEqual({ ok: true, needsRehash: false });
    expect(await verifyPassword("correct horsE", h)).toEqual({ ok: false, needsRehash: false });
  });

  it("old hashes still verify and are marked for rehashing, only when the password matched", async () => {
    const old = legacyHash("s3cret-old");
    expect(await verifyPassword("s3cret-old", old)).toEqual({ ok: true, needsRehash: true });
    expect(await verifyPassword("wrong", old)).toEqual({ ok: false, needsRehash: false });
  });

  it("a stronger stored setting is not 'weaker' and is left alone", async () => {
    const salt = randomBytes(16);
    const hash = scryptSync("pw", salt, 32, { N: 32768, r: 8, p: 5, maxmem: 64 * 1024 * 1024 });
    expect(
      await verifyPassword("pw", `scrypt$32768$8$5$${salt.toString("base64url")}$${hash.toString("base64url")}`),
    ).toEqual({ ok: true, needsRehash: false });
  });

  it.each([
    null,
    "",
    "plain",
    "scrypt$16384$8$1$only-five",
    "bcrypt$x$y$z$a$b",
    "scrypt$1000$8$1$AAAA$AAAAAAAAAAAAAAAAAAAAAA",
    "scrypt$1073741824$8$1$AAAA$AAAAAAAAAAAAAAAAAAAAAA",
    "scrypt$16384$8$1$AAAA$",
  ])("no usable hash (%j) never matches, and costs a full check", async (stored) => {
    expect(await verifyPassword("anything", stored)).toEqual({ ok: false, needsRehash: false });
  });

  it("an unknown account costs the same as a real check at the current setting (not the old, cheaper one)", async () => {
    const h = await hashPassword("pw");
    const oldHash = legacyHash("pw");
    const [real, dummy, old] = await medians([
      () => verifyPassword("nope", h),
      () => verifyPassword("nope", null),
      () => verifyPassword("nope", oldHash),
    ]);
    expect(dummy / real).toBeGreaterThan(0.6);
    expect(dummy / real).toBeLessThan(1.6);
    // p=5 does five times the work of the old p=1.
    expect(old).toBeLessThan(real / 2);
  }, 60_000);
});

describe("rehash on sign-in", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function addUser(email: string, hash: string): Promise<string> {
    const id = randomUUID();
    await t.pool.query(
      `INSERT INTO users (id, email, password_hash, role, tenants) VALUES ($1, $2, $3, 'viewer', ARRAY['*'])`,
      [id, email, hash],
    );
    return id;
  }
  const stored = async (id: string) =>
    (await t.pool.query(`SELECT password_hash FROM users WHERE id = $1`, [id])).rows[0].password_hash as string;

  it("a sign-in with an old hash stores a current one, once; both passwords paths keep working", async () => {
    const id = await addUser("legacy@example.com", legacyHash("old but good"));
    expect(await identityForPassword(t.pool, "legacy@example.com", "wrong")).toBeNull();
    expect(await stored(id)).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await identityForPassword(t.pool, "legacy@example.com", "old but good")).not.toBeNull();
    const upgraded = await stored(id);
    expect(upgraded).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(await identityForPassword(t.pool, "Legacy@Example.com", "old but good")).not.toBeNull();
    expect(await stored(id)).toBe(upgraded);
  });

  it("a password changed meanwhile wins over the rehash", async () => {
    const old = legacyHash("before");
    const id = await addUser("race@example.com", old);
    const changed = await hashPassword("after");
    await t.pool.query(`UPDATE users SET password_hash = $2 WHERE id = $1`, [id, changed]);
    expect(await rehash(t.pool, id, old, "before")).toBe(false);
    expect(await stored(id)).toBe(changed);
    expect(await identityForPassword(t.pool, "race@example.com", "before")).toBeNull();
    expect(await identityForPassword(t.pool, "race@example.com", "after")).not.toBeNull();
  });
});

describe("hashing is bounded", () => {
  it(`a gate runs so many hashes at once (the server's: ${HASH_CONCURRENCY}, with ${HASH_QUEUE} waiting) and refuses the rest at once with 503 HASHING_BUSY and Retry-After`, async () => {
    const run = hashGate(1, 2);
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      try {
        return await hashPassword("correct horse");
      } finally {
        running--;
      }
    };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => run(task)));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "rejected"]);
    for (const r of results.slice(3))
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        status: 503,
        code: "HASHING_BUSY",
        headers: { "retry-after": "2" },
      });
    expect(most).toBe(1);
    // Once drained, the gate admits again.
    await expect(run(task)).resolves.toMatch(/^scrypt\$/);
  });

  it(`is shared fairly: one account or one address holds at most ${HASH_PER_CALLER} places, so ~40 parallel sign-ins of one account leave others a turn`, async () => {
    const stored = await hashPassword("the owner's password");
    const flood = Array.from({ length: 40 }, () =>
      verifyPassword("guess", stored, ["account:flood@example.com", "address:10.9.0.1"]),
    );
    const otherAccount = verifyPassword("the owner's password", stored, [
      "account:someone@example.com",
      "address:10.9.0.2",
    ]);
    const sameAddress = Array.from({ length: 10 }, (_, i) =>
      verifyPassword("guess", stored, [`account:spray${i}@example.com`, "address:10.9.0.3"]),
    );
    const [f, o, a] = await Promise.all([Promise.allSettled(flood), otherAccount, Promise.allSettled(sameAddress)]);
    expect(o.ok).toBe(true);
    expect(f.filter((r) => r.status === "fulfilled")).toHaveLength(HASH_PER_CALLER);
    for (const r of f.filter((r) => r.status === "rejected"))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 503, code: "HASHING_BUSY" });
    // Many accounts from one address are one caller too.
    expect(a.filter((r) => r.status === "fulfilled")).toHaveLength(HASH_PER_CALLER);
    // Its places are given back once its checks end.
    await expect(
      verifyPassword("guess", stored, ["account:flood@example.com", "address:10.9.0.1"]),
    ).resolves.toMatchObject({ ok: false });
  }, 60_000);
});
