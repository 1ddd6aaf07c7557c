import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { legacyHash } from "../helpers/legacy-hash";
import { ADDRESS_BLOCK_SECONDS, FAILURES_PER_ADDRESS, FREE_ATTEMPTS } from "../../lib/auth/throttle";
import { DEFAULT_ADMIN_EMAIL, upsertAdmin } from "../../lib/auth/users";

// POST /api/auth/signin called in-process. X-Forwarded-For here plays the part of the header the
// web server (cli/web.ts) leaves: one trusted address (test/http/web-server.test.ts covers that).

const BOOT = "throttle-bootstrap-token-0123456789";
let t: TestDb;
let signin: typeof import("../../app/api/auth/signin/route");
beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.INDEXWRIGHT_SESSION_SECRET = "throttle-test-session-secret";
  process.env.LOG_LEVEL = "silent";
  signin = await import("../../app/api/auth/signin/route");
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = { params: Promise.resolve({} as Record<string, string>) };
const post = (body: unknown, address: string) =>
  signin.POST(
    new Request("http://dash.local/api/auth/signin", {
      method: "POST",
      headers: { "content-type": "application/json", host: "dash.local", "x-forwarded-for": address },
      body: JSON.stringify(body),
    }),
    ctx,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function addUser(email: string, hash: string): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `INSERT INTO users (id, email, password_hash, role, tenants) VALUES ($1, $2, $3, 'viewer', ARRAY['*'])`,
    [id, email, hash],
  );
  return id;
}
const storedHash = async (id: string) =>
  (await t.pool.query(`SELECT password_hash FROM users WHERE id = $1`, [id])).rows[0].password_hash as string;

describe("sign-in throttling", () => {
  it("another spelling of a throttled email (PostgreSQL folds 'İ' to 'i', JavaScript does not) does not sign in past the count", async () => {
    const { hashPassword } = await import("../../lib/auth/password");
    await addUser("mini@example.com", await hashPassword("the right password"));
    for (let i = 0; i < FREE_ATTEMPTS; i++)
      expect((await post({ email: "mini@example.com", password: `guess-${i}` }, "198.51.100.40")).status).toBe(401);
    expect((await post({ email: "mini@example.com", password: "the right password" }, "198.51.100.40")).status).toBe(
      429,
    );
    for (const spelling of ["m\u0130ni@example.com", "mini@example.com".replace("i", "\u0130")]) {
      expect((await post({ email: spelling, password: "the right password" }, "198.51.100.40")).status).toBe(401);
    }
  }, 60_000);

  it("after the free failures a blocked attempt is 429 TOO_MANY_ATTEMPTS with Retry-After, and the password is not checked", async () => {
    // An old-format hash: a checked correct password would be rehashed, so an unchanged hash shows it was not checked.
    const old = legacyHash("right password");
    const id = await addUser("victim@example.com", old);
    for (let i = 0; i < FREE_ATTEMPTS; i++)
      expect((await post({ email: "victim@example.com", password: `guess-${i}` }, "198.51.100.10")).status).toBe(401);

    const blocked = await post({ email: "victim@example.com", password: "right password" }, "198.51.100.10");
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("1");
    expect(blocked.headers.get("set-cookie")).toBeNull();
    expect(await blocked.json()).toEqual({
      error: { code: "TOO_MANY_ATTEMPTS", message: "too many failed sign-ins; try again in 1 second" },
    });
    expect(await storedHash(id)).toBe(old);

    // The real owner at another address is not slowed down at all.
    const owner = await post({ email: "victim@example.com", password: "right password" }, "203.0.113.20");
    expect(owner.status).toBe(200);
    expect(owner.headers.get("set-cookie")).toMatch(/iw_session=/);
    // ... and that sign-in replaced the old hash with one at the current setting.
    expect(await storedHash(id)).toMatch(/^scrypt\$16384\$8\$5\$/);

    // Slowed, not locked: after the wait the right password works from the first address too,
    // and that success gives it its free attempts back.
    await sleep(1000 * Number(blocked.headers.get("retry-after")) + 100);
    expect((await post({ email: "victim@example.com", password: "right password" }, "198.51.100.10")).status).toBe(200);
    for (let i = 0; i < FREE_ATTEMPTS; i++)
      expect((await post({ email: "victim@example.com", password: `again-${i}` }, "198.51.100.10")).status).toBe(401);
    expect((await post({ email: "victim@example.com", password: "again" }, "198.51.100.10")).status).toBe(429);
  }, 60_000);

  it("unknown accounts are slowed like known ones (a 429 does not reveal who exists)", async () => {
    for (let i = 0; i < FREE_ATTEMPTS; i++)
      expect((await post({ email: "nobody@example.com", password: `x${i}` }, "198.51.100.11")).status).toBe(401);
    expect((await post({ email: "nobody@example.com", password: "y" }, "198.51.100.11")).status).toBe(429);
  }, 30_000);

  it(`token sign-in is limited per address: after ${FAILURES_PER_ADDRESS} failures even a valid token waits there, not elsewhere`, async () => {
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++)
      expect((await post({ token: `iw_not-a-token-${i}` }, "198.51.100.12")).status).toBe(401);
    const blocked = await post({ token: BOOT }, "198.51.100.12");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(ADDRESS_BLOCK_SECONDS - 60);
    expect((await blocked.json()).error.code).toBe("TOO_MANY_ATTEMPTS");
    // Password sign-ins from that address wait too; other addresses are unaffected.
    expect((await post({ email: "victim@example.com", password: "right password" }, "198.51.100.12")).status).toBe(429);
    expect((await post({ token: BOOT }, "198.51.100.13")).status).toBe(200);
  }, 60_000);

  it("an address written as IPv4-mapped IPv6 is the same address", async () => {
    for (let i = 0; i < FREE_ATTEMPTS; i++)
      expect(
        (
          await post(
            { email: "mapped@example.com", password: `m${i}` },
            i % 2 ? "198.51.100.14" : "::ffff:198.51.100.14",
          )
        ).status,
      ).toBe(401);
    expect((await post({ email: "mapped@example.com", password: "m" }, "198.51.100.14")).status).toBe(429);
  }, 30_000);
});

describe("sign-in body", () => {
  it("the bootstrap admin's default admin@localhost signs in (no dot in the domain)", async () => {
    await upsertAdmin(t.pool, DEFAULT_ADMIN_EMAIL, "a generated password");
    expect(DEFAULT_ADMIN_EMAIL).toBe("admin@localhost");
    expect((await post({ email: "admin@localhost", password: "a generated password" }, "198.51.100.30")).status).toBe(
      200,
    );
  });

  it.each([
    "not-an-email",
    "two@@example.com",
    "' OR 1=1 --@example.test",
    "a b@example.com",
    "@example.com",
    "admin@",
  ])("%j is refused as VALIDATION_FAILED", async (email) => {
    const res = await post({ email, password: "x" }, "198.51.100.31");
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("VALIDATION_FAILED");
  });
});
