import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { loadConfig } from "../../lib/config";
import { searchAnswer } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import { registerEnvironmentSpace } from "../../lib/spaces/registry";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import type { Worker } from "../../worker/loop";

// A start with other embedding settings never moves a tenant (docs/decisions/039-index-spaces.md §8):
// the new settings become the default space of new tenants and a migration for every tenant on the
// old default; search keeps answering from the space each tenant searched.

let t: TestDb;
let worker: Worker;
const spaces = () => new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });

const publishTo = (tenant: string, key: string, text: string) =>
  publish(t.pool, {
    tenant,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(`# ${key}\n\n${text}`),
    acl: [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: 8,
  });

beforeAll(async () => {
  t = await createTestDb();
  worker = testWorker(t, "reg-w", { MIGRATION_SLOTS: "0" });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(5_000);
  await t?.close();
});

describe("registering the environment's embedding settings at start", () => {
  it("is a no-op for the settings the database already has", async () => {
    const r = await registerEnvironmentSpace(t.pool, loadConfig({}));
    expect(r).toMatchObject({ created: false, becameDefault: false, migrationsStarted: [] });
    expect(r.space).toMatchObject({ name: "local", dimensions: 384, isDefault: true });
  });

  it("after a restart with another model, every search answers from the old space while a migration builds the new one", async () => {
    for (let i = 0; i < 5; i++)
      await publishTo("acme", `policy-${i}`, `Refund policy ${i} covers returns of item${i}.`);
    await waitFor(async () => {
      const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM search_pointers WHERE tenant_id = 'acme'`);
      return rows[0].n === 5;
    });
    const before = await searchAnswer(t.pool, spaces(), {
      tenant: "acme",
      query: "returns of item3",
      topK: 3,
      principals: [],
    });
    expect(before.hits[0]?.documentKey).toBe("policy-3");

    const r = await registerEnvironmentSpace(
      t.pool,
      loadConfig({
        EMBEDDING_PROVIDER: "openai",
        EMBEDDING_MODEL: "text-embedding-3-large",
        EMBEDDING_DIMENSIONS: "1024",
        OPENAI_API_KEY: "sk-test",
      }),
    );
    expect(r).toMatchObject({ created: true, becameDefault: true });
    expect(r.space).toMatchObject({
      provider: "openai",
      model: "text-embedding-3-large",
      dimensions: 1024,
      apiKeyEnv: "OPENAI_API_KEY",
    });
    expect(r.migrationsStarted).toHaveLength(1);

    // The tenant still searches its space: same answers, no embedding with the new provider needed.
    const after = await searchAnswer(t.pool, spaces(), {
      tenant: "acme",
      query: "returns of item3",
      topK: 3,
      principals: [],
    });
    expect(after.space.name).toBe("local");
    expect(after.hits.map((h) => h.chunkId)).toEqual(before.hits.map((h) => h.chunkId));
    const { rows } = await t.pool.query(
      `SELECT m.state, f.name AS from_space, s.name AS to_space, m.created_by
         FROM space_migrations m JOIN embedding_spaces f ON f.id = m.from_space_id JOIN embedding_spaces s ON s.id = m.to_space_id
        WHERE m.tenant_id = 'acme'`,
    );
    expect(rows).toEqual([{ state: "BUILDING", from_space: "local", to_space: r.space.name, created_by: "system" }]);
    const queued = await t.pool.query(
      `SELECT count(*)::int AS n FROM index_tasks WHERE tenant_id = 'acme' AND task_type = 'MIGRATE' AND status = 'PENDING'`,
    );
    expect(queued.rows[0].n).toBe(5);

    // A second start with the same settings changes nothing more.
    const again = await registerEnvironmentSpace(
      t.pool,
      loadConfig({
        EMBEDDING_PROVIDER: "openai",
        EMBEDDING_MODEL: "text-embedding-3-large",
        EMBEDDING_DIMENSIONS: "1024",
        OPENAI_API_KEY: "sk-test",
      }),
    );
    expect(again).toMatchObject({ created: false, becameDefault: false, migrationsStarted: [] });

    // A tenant that first publishes now starts on the new default.
    await publishTo("newco", "welcome", "Hello.");
    const { rows: nt } = await t.pool.query(
      `SELECT s.name FROM tenants t JOIN embedding_spaces s ON s.id = t.active_space_id WHERE t.id = 'newco'`,
    );
    expect(nt[0].name).toBe(r.space.name);
  });
});
