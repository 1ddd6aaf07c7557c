import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { startEmbedded, type EmbeddedDb } from "../../lib/db/embedded";
import net from "node:net";
import { freePort } from "../helpers/db";

// The embedded server multiplexes many client connections onto PGlite's single session; each
// extended-protocol query must run whole, or concurrent clients corrupt each other's statements.
let e: EmbeddedDb;
beforeAll(async () => {
  e = await startEmbedded({ port: await freePort() });
});
afterAll(async () => e?.stop());

describe("embedded PGlite server: password and loopback", () => {
  const withPassword = (url: string, pw: string | null) => {
    const u = new URL(url);
    u.password = pw ?? "";
    return u.toString();
  };
  async function tryConnect(url: string): Promise<string> {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      return String((await c.query("SELECT current_user AS u")).rows[0].u);
    } catch (err) {
      return `refused: ${(err as { code?: string }).code ?? (err as Error).message}`;
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  it("asks every client for its password: the right one connects, a wrong or missing one is refused with 28P01", async () => {
    expect(await tryConnect(e.url)).toBe("postgres");
    expect(await tryConnect(withPassword(e.url, "postgres"))).toBe("refused: 28P01");
    expect(await tryConnect(withPassword(e.url, "wrong-password-of-the-same-length-xx"))).toBe("refused: 28P01");
    // A refused attempt leaves the server serving others.
    expect(await tryConnect(e.url)).toBe("postgres");
  });

  it("a client that skips authentication (sends a query right after its startup message) gets no answer but an error", async () => {
    const port = Number(new URL(e.url).port);
    const reply = await new Promise<Buffer>((resolve) => {
      const s = net.connect(port, "127.0.0.1");
      let got = Buffer.alloc(0);
      s.on("data", (d) => (got = Buffer.concat([got, d])));
      s.on("close", () => resolve(got));
      s.on("connect", () => {
        const params = Buffer.from("user\0postgres\0database\0postgres\0\0");
        const startup = Buffer.alloc(8);
        startup.writeInt32BE(8 + params.length, 0);
        startup.writeInt32BE(196608, 4);
        const q = Buffer.from("SELECT 1\0");
        const query = Buffer.alloc(5);
        query.write("Q", 0);
        query.writeInt32BE(4 + q.length, 1);
        s.write(Buffer.concat([startup, params, query, q]));
      });
    });
    // AuthenticationCleartextPassword, then a FATAL error; never AuthenticationOk (R, 8, 0) or a row.
    expect(reply.subarray(0, 9)).toEqual(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
    expect(reply[9]).toBe(0x45);
    expect(reply.includes(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]))).toBe(false);
  });

  it("given a password, uses it; and refuses to listen beyond loopback", async () => {
    const port = await freePort();
    const own = await startEmbedded({ port, password: "a password from the data dir" });
    try {
      expect(own.url).toContain(encodeURIComponent("a password from the data dir"));
      expect(await tryConnect(own.url)).toBe("postgres");
    } finally {
      await own.stop();
    }
    await expect(startEmbedded({ port: await freePort(), host: "0.0.0.0" })).rejects.toThrow(/loopback only/);
  });
});

describe("embedded PGlite server", () => {
  it("serves concurrent parameterised queries from many connections correctly", async () => {
    const pool = new pg.Pool({ connectionString: e.url, max: 8 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? pool
              .query("SELECT $1::int + $2::int AS v, $3::text AS s", [i, 1, `x${i}`])
              .then((r) => [r.rows[0].v, r.rows[0].s])
          : pool.query("SELECT $1::int * 2 AS v", [i]).then((r) => [r.rows[0].v, null]),
      ),
    );
    results.forEach(([v, s], i) => {
      if (i % 2 === 0) expect([v, s]).toEqual([i + 1, `x${i}`]);
      else expect(v).toBe(i * 2);
    });
    await pool.end();
  });

  it("keeps a transaction on one connection isolated from others' statements", async () => {
    const pool = new pg.Pool({ connectionString: e.url, max: 4 });
    await pool.query("CREATE TABLE IF NOT EXISTS tx_probe (n int)");
    const tx = await pool.connect();
    await tx.query("BEGIN");
    await tx.query("INSERT INTO tx_probe VALUES ($1)", [1]);
    const other = pool.query("SELECT count(*)::int AS n FROM tx_probe");
    await tx.query("ROLLBACK");
    tx.release();
    expect((await other).rows[0].n).toBe(0);
    await pool.end();
  });
});
