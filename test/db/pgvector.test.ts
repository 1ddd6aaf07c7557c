import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { pgvectorProblem, requirePgvector } from "../../lib/db/pgvector";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb({ migrate: false });
});
afterAll(async () => t?.close());

describe("pgvector check at start", () => {
  it("passes on this server's pgvector, installed or not yet", async () => {
    const before = await requirePgvector(t.url);
    expect(before.available).toMatch(/^\d+\.\d+\.\d+$/);
    await t.pool.query(`CREATE EXTENSION IF NOT EXISTS vector`);
    const after = await requirePgvector(t.url);
    expect(after.installed).toBe(after.available);
  });

  it("names what is missing and how to install or update it", () => {
    expect(pgvectorProblem("0.8.0", "0.8.0")).toBeNull();
    expect(pgvectorProblem("0.8.1", null)).toBeNull();
    expect(pgvectorProblem(null, "0.10.0")).toBeNull();
    expect(pgvectorProblem(null, null)).toMatch(
      /^pgvector is not installed on the PostgreSQL server at DATABASE_URL\. Install pgvector 0\.8\.0 or later .*apt install postgresql-<major>-pgvector/,
    );
    expect(pgvectorProblem(null, "0.7.4")).toMatch(/offers pgvector 0\.7\.4; Indexwright needs 0\.8\.0 or later/);
    expect(pgvectorProblem("0.7.4", "0.8.0")).toMatch(
      /pgvector 0\.7\.4 is installed in this database.*The server already has 0\.8\.0: run ALTER EXTENSION vector UPDATE;/,
    );
    expect(pgvectorProblem("0.5.1", "0.5.1")).toMatch(
      /Install pgvector 0\.8\.0 or later.*Then run ALTER EXTENSION vector UPDATE;/,
    );
  });
});
