import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider";
import { publish } from "../../lib/documents/publish";
import { loadConfig, setEnv } from "../../lib/config";
import { searchAnswer } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import { bulkRetry } from "../../lib/operations/repository";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import { newSpaceBody } from "../../lib/spaces/schemas";
import {
  actOnMigration,
  createSpace,
  getMigration,
  listSpaces,
  retireSpace,
  startMigration,
  updateSpace,
} from "../../lib/spaces/repository";
import { Worker } from "../../worker/loop";

// Index spaces as data (docs/index-spaces.md): a space that cannot embed is refused at creation
// after one probe call, with a stable code and nothing stored; a provider that fails mid-migration
// holds the migration with its error code and loses nothing; the rate paces the work; the cost is
// the tokens at the space's price.

const TENANT = "adm";
const admin = { subject: "user:admin@example.com" };
const KEY_VAR = "IW_SPACES_TEST_API_KEY";
let t: TestDb;
let fake: FakeProvider;
let worker: Worker;

const publishDoc = (i: number) =>
  publish(t.pool, {
    tenant: TENANT,
    key: `doc-${i}`,
    title: `Doc ${i}`,
    contentType: "text/markdown",
    content: Buffer.from(`# Doc ${i}\n\nThe quay ${i} procedure covers mooring line ${i} and bollard ${i * 3}.`),
    acl: [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: 8,
  });

const stored = async (name: string) =>
  (await t.pool.query(`SELECT 1 FROM embedding_spaces WHERE name = $1`, [name])).rows.length;

beforeAll(async () => {
  t = await createTestDb();
  fake = await startFakeProvider({ dimensions: 64, apiKey: "sk-spaces" });
  setEnv(KEY_VAR as never, "sk-spaces");
  // A short circuit-breaker pause, so the retry after the provider's recovery runs within the test.
  const cfg = loadConfig({
    POLL_INTERVAL_MS: "50",
    LEASE_SECONDS: "10",
    LOG_LEVEL: "silent",
    RETRY_BASE_SECONDS: "0.1",
    RETRY_MAX_SECONDS: "0.5",
    EMBED_BATCH_SIZE: "2",
  });
  const preset = new LocalEmbedder(384);
  worker = new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: "adm-w",
    concurrency: 3,
    cfg,
    embedder: preset,
    spaces: new SpaceEmbedders({ timeoutMs: 2_000, preset, circuit: { openMs: 300 } }),
  });
  await worker.start();
  for (let i = 0; i < 6; i++) await publishDoc(i);
  await waitFor(async () => {
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM search_pointers WHERE tenant_id = $1`, [
      TENANT,
    ]);
    return rows[0].n === 6;
  });
});
afterAll(async () => {
  await worker?.stop(5_000);
  await fake?.close();
  await t?.close();
});

describe("registering an index space", () => {
  const base = { provider: "openai" as const, model: "fake-embed", dimensions: 64 };

  it("refuses a key variable that is not set, an unreachable provider and other dimensions, storing nothing", async () => {
    await expect(
      createSpace(
        t.pool,
        admin,
        { ...base, name: "no-key", baseUrl: fake.url, apiKeyEnv: "IW_SPACES_UNSET_API_KEY" },
        2_000,
      ),
    ).rejects.toMatchObject({ code: "SPACE_KEY_MISSING", message: expect.stringContaining("IW_SPACES_UNSET_API_KEY") });
    await expect(
      createSpace(
        t.pool,
        admin,
        { ...base, name: "unreachable", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: KEY_VAR },
        2_000,
      ),
    ).rejects.toMatchObject({ code: "SPACE_UNREACHABLE" });
    fake.mode("wrong-dimension");
    await expect(
      createSpace(t.pool, admin, { ...base, name: "wrong-dims", baseUrl: fake.url, apiKeyEnv: KEY_VAR }, 2_000),
    ).rejects.toMatchObject({ code: "SPACE_DIMENSIONS_MISMATCH" });
    fake.mode("ok");
    // A key variable must be a provider key's (…_API_KEY), never one of the server's own secrets:
    // the space would send it to its base URL.
    setEnv("INDEXWRIGHT_SESSION_SECRET" as never, "s3cr3t-signing-key");
    const before = fake.requests;
    await expect(
      createSpace(
        t.pool,
        admin,
        { ...base, name: "exfil", baseUrl: fake.url, apiKeyEnv: "INDEXWRIGHT_SESSION_SECRET" },
        2_000,
      ),
    ).rejects.toMatchObject({ code: "SPACE_KEY_MISSING" });
    expect(fake.requests).toBe(before);
    for (const bad of ["DATABASE_URL", "INDEXWRIGHT_SESSION_SECRET", "OIDC_CLIENT_SECRET", "INDEXWRIGHT_X_API_KEY"])
      expect(newSpaceBody.safeParse({ ...base, name: "x", apiKeyEnv: bad }).success, bad).toBe(false);
    expect(newSpaceBody.safeParse({ ...base, name: "x", apiKeyEnv: "MISTRAL_API_KEY" }).success).toBe(true);
    expect(newSpaceBody.safeParse({ ...base, name: "x", baseUrl: "https://user:pw@example.com/v1" }).success).toBe(
      false,
    );
    for (const n of ["no-key", "unreachable", "wrong-dims", "exfil"]) expect(await stored(n)).toBe(0);
    await expect(
      createSpace(t.pool, admin, { name: "local", provider: "local", dimensions: 8 }, 2_000),
    ).rejects.toMatchObject({ code: "SPACE_NAME_TAKEN" });
  });

  it("stores one that answered its probe, audited, and keeps the key's variable name, never the key", async () => {
    const requests = fake.requests;
    const s = await createSpace(
      t.pool,
      admin,
      { ...base, name: "fake-64", baseUrl: fake.url, apiKeyEnv: KEY_VAR, pricePerMillionTokens: 0.5 },
      2_000,
    );
    expect(fake.requests).toBe(requests + 1);
    expect(s).toMatchObject({
      name: "fake-64",
      apiKeyEnv: KEY_VAR,
      isDefault: false,
      tenantsActive: 0,
      indexBuilt: false,
    });
    const raw = await t.pool.query(`SELECT row_to_json(s)::text AS j FROM embedding_spaces s WHERE name = 'fake-64'`);
    expect(raw.rows[0].j).not.toContain("sk-spaces");
    const audit = await t.pool.query(`SELECT action, target_id FROM audit_log WHERE action = 'space.create'`);
    expect(audit.rows).toEqual([{ action: "space.create", target_id: "fake-64" }]);
    expect((await listSpaces(t.pool)).map((x) => x.name)).toEqual(["local", "fake-64"]);
  });

  it("retires only a space nobody uses", async () => {
    await expect(retireSpace(t.pool, admin, "local", null)).rejects.toMatchObject({ code: "SPACE_IN_USE" });
    await createSpace(t.pool, admin, { name: "spare", provider: "local", dimensions: 16 }, 2_000);
    expect((await retireSpace(t.pool, admin, "spare", "unused")).retiredAt).not.toBeNull();
    await expect(startMigration(t.pool, admin, TENANT, { space: "spare" }, 8)).rejects.toMatchObject({
      code: "SPACE_RETIRED",
    });
  });
});

describe("a provider that fails mid-migration", () => {
  it("holds the migration with its error code; search keeps its space; a retry after recovery completes it, nothing lost", async () => {
    fake.mode("503");
    const m = await startMigration(t.pool, admin, TENANT, { space: "fake-64" }, 2);
    await waitFor(async () => (await getMigration(t.pool, TENANT, m.id)).documents.failed === 6, 30_000);
    const held = await getMigration(t.pool, TENANT, m.id);
    expect(held.failures).toEqual([{ errorCode: "EMBEDDING_PROVIDER_UNAVAILABLE", count: 6 }]);
    expect(held.documents).toMatchObject({ total: 6, built: 0 });
    await expect(actOnMigration(t.pool, admin, TENANT, m.id, "switch", null)).rejects.toMatchObject({
      code: "MIGRATION_NOT_READY",
    });
    const a = await searchAnswer(t.pool, new SpaceEmbedders({ timeoutMs: 2_000, preset: new LocalEmbedder(384) }), {
      tenant: TENANT,
      query: "quay 4 procedure mooring line 4",
      topK: 1,
      principals: [],
    });
    expect(a).toMatchObject({ space: { name: "local" }, hits: [{ documentKey: "doc-4" }] });

    fake.mode("ok");
    const r = await bulkRetry(t.pool, { type: "MIGRATE", tenant: TENANT }, admin, "provider back", 2, null);
    expect(r.retried).toBe(6);
    await waitFor(async () => {
      const v = await getMigration(t.pool, TENANT, m.id);
      return v.documents.built === 6 && v.documents.pending === 0;
    }, 30_000);
    const done = await getMigration(t.pool, TENANT, m.id);
    expect(done.failures).toEqual([]);
    expect(done.tokensEmbedded).toBeGreaterThan(0);
    expect(done.estimatedCostUsd).toBeCloseTo((done.tokensEmbedded / 1e6) * 0.5, 12);
    await actOnMigration(t.pool, admin, TENANT, m.id, "abort", "test over");
  }, 60_000);
});

describe("the migration rate", () => {
  it("paces the embedding calls of a migration to the space's texts per minute, fleet-wide", async () => {
    await t.pool.query(
      `UPDATE space_migrations SET state = 'ABORTED' WHERE tenant_id = $1 AND state IN ('BUILDING', 'READY')`,
      [TENANT],
    );
    await createSpace(t.pool, admin, { name: "paced", provider: "local", dimensions: 32 }, 2_000);
    await updateSpace(t.pool, admin, "paced", { textsPerMinute: 120 });
    const t0 = Date.now();
    const m = await startMigration(t.pool, admin, TENANT, { space: "paced" }, 8);
    await waitFor(async () => (await getMigration(t.pool, TENANT, m.id)).documents.built === 6, 30_000, 20);
    const elapsed = Date.now() - t0;
    // 6 texts at 2 a second, after a burst of one second's worth: at least 2 s.
    expect(elapsed).toBeGreaterThanOrEqual(1_800);
    expect((await getMigration(t.pool, TENANT, m.id)).textsEmbedded).toBe(6);
    await actOnMigration(t.pool, admin, TENANT, m.id, "abort", "test over");
  }, 60_000);
});
