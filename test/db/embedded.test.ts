import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { startEmbedded, type EmbeddedDb } from "../../lib/db/embedded";
import { freePort } from "../helpers/db";

// The embedded server multiplexes many client connections onto PGlite's single session; each
// extended-protocol query must run whole, or concurrent clients corrupt each other's statements.
let e: EmbeddedDb;
beforeAll(async () => {
  e = await startEmbedded({ port: await freePort() });
});
afterAll(async () => e?.stop());

describe("embedded PGlite server", () => {
  it("serves concurrent parameterised queries from many connections correctly", async () => {
    const pool = new pg.Pool({ connectionString: e.url, max: 8 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? pool.query("SELECT $1::int + $2::int AS v, $3::text AS s", [i, 1, `x${i}`]).then((r) => [r.rows[0].v, r.rows[0].s])
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
