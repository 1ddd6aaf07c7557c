import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { loadConfig } from "../../lib/config";
import { publish } from "../../lib/documents/publish";
import { searchAnswer } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import type { Embedder } from "../../lib/embedding/types";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import type { Space } from "../../lib/spaces/types";
import { actOnMigration, getMigration, startMigration } from "../../lib/spaces/repository";
import { advanceMigrations } from "../../lib/spaces/maintenance";
import { hasSpaceIndex } from "../../lib/spaces/indexes";
import { renderMetrics } from "../../lib/metrics";
import { Worker } from "../../worker/loop";

// A tenant moves from one index space to another while a reader searches every 200 ms with queries
// known to hit: no empty answer, no hit from the candidate before the switch, none from the old
// space after it; a document published mid-migration is searchable at once and in the candidate
// at the switch; switch-back embeds nothing; abort leaves the old space untouched.

const TENANT = "mig";
const N = 200;
const SETTINGS = { indexMemoryMb: 64, parallelWorkers: 0 };
const op = { subject: "user:ops@example.com" };

/** What the scrape says is still to build. */
const startedMetric = (body: string) => Number(/indexwright_migration_documents_remaining (\d+)/.exec(body)?.[1] ?? -1);

/** Counts texts embedded per space. */
class CountingSpaces extends SpaceEmbedders {
  readonly texts = new Map<string, number>();
  override embedderFor(space: Space): Embedder {
    const inner = super.embedderFor(space);
    return {
      model: inner.model,
      dimensions: inner.dimensions,
      embed: async (texts, signal) => {
        this.texts.set(space.name, (this.texts.get(space.name) ?? 0) + texts.length);
        return inner.embed(texts, signal);
      },
    };
  }
}

const topic = (i: number) => `warehouse procedure ${i} zebra${i} quartz${i}`;
const doc = (i: number) =>
  `# Procedure ${i}\n\nThe ${topic(i)} covers how parcels are sorted in bay ${i}, weighed and labelled before dispatch.`;

let t: TestDb;
let worker: Worker;
/** The worker's embedders (counted); the reader embeds its queries with its own. */
const spaces = new CountingSpaces({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });
const readerSpaces = new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });
let candidateId = 0;

async function publishDoc(i: number, body = doc(i)) {
  return publish(t.pool, {
    tenant: TENANT,
    key: `doc-${i}`,
    title: `Procedure ${i}`,
    contentType: "text/markdown",
    content: Buffer.from(body),
    acl: [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: 8,
  });
}

const searchable = async (key: string) =>
  (
    await t.pool.query(
      `SELECT 1 FROM documents d JOIN search_pointers sp ON sp.document_id = d.id AND sp.version_number = d.business_version
        WHERE d.tenant_id = $1 AND d.key = $2`,
      [TENANT, key],
    )
  ).rows.length > 0;

beforeAll(async () => {
  t = await createTestDb();
  await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1)`, [TENANT]);
  await t.pool.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, secret, event_types, created_by)
     VALUES (gen_random_uuid(), $1, 'https://example.com/hook', 'whsec_x', $2, 't')`,
    [
      TENANT,
      ["document.searchable", "migration.started", "migration.ready", "migration.switched", "migration.switched_back"],
    ],
  );
  const cfg = loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "10", LOG_LEVEL: "silent" });
  worker = new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: "mig-w",
    concurrency: 3,
    cfg,
    embedder: spaces.preset!,
    spaces,
  });
  await worker.start();
  for (let i = 0; i < N; i++) await publishDoc(i);
  await waitFor(async () => {
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM search_pointers WHERE tenant_id = $1`, [
      TENANT,
    ]);
    return rows[0].n === N;
  }, 60_000);
  // The candidate: a second local space of other dimensions, with no HNSW index yet.
  candidateId = (
    await t.pool.query<{ id: number }>(
      `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
       VALUES ('local-256', 'local', 'indexwright-local-hash-v1', 256, 'md-heading-v2') RETURNING id`,
    )
  ).rows[0].id;
}, 120_000);

afterAll(async () => {
  await worker?.stop(5_000);
  await t?.close();
});

describe("an index-space migration", () => {
  it("builds aside, switches in one transaction and back with nothing embedded, while every search answers", async () => {
    const answers: { at: number; end: number; space: string; hits: number; i: number }[] = [];
    let reading = true;
    const reader = (async () => {
      for (let k = 0; reading; k++) {
        const i = k % N;
        const at = Date.now();
        const a = await searchAnswer(t.pool, readerSpaces, {
          tenant: TENANT,
          query: topic(i),
          topK: 3,
          principals: [],
          mode: "vector",
        });
        answers.push({ at, end: Date.now(), space: a.space.name, hits: a.hits.length, i });
        expect(a.hits[0]?.documentKey, `query for doc-${i} in ${a.space.name}`).toBe(`doc-${i}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    let beforeSwitch = 0;
    let afterSwitch = 0;
    let beforeBack = 0;
    let afterBack = 0;
    let embeddedBefore = 0;
    let publishToSearchable = 0;
    try {
      const started = await startMigration(t.pool, op, TENANT, { space: "local-256" }, 8);
      const scrape = (await renderMetrics(t.pool, { leaseSeconds: 10, heartbeatSeconds: 3 })).body;
      expect(scrape).toMatch(/indexwright_migrations_open\{state="BUILDING"\} 1/);
      expect(scrape).toMatch(/indexwright_migration_documents_remaining \d+/);
      // The workers may have built some or all of it by the time the scrape counts.
      expect(startedMetric(scrape)).toBeGreaterThanOrEqual(0);
      expect(startedMetric(scrape)).toBeLessThanOrEqual(N);
      expect(started).toMatchObject({ state: "BUILDING", active: "local", shadow: "local-256" });
      expect(started.documents).toMatchObject({ total: N });

      // A publish mid-migration is searchable as fast as ever (the active space first) and reaches
      // the candidate before the switch.
      const t0 = Date.now();
      await publishDoc(N, doc(N));
      await waitFor(() => searchable(`doc-${N}`), 20_000, 20);
      publishToSearchable = Date.now() - t0;

      await waitFor(async () => {
        const m = await getMigration(t.pool, TENANT, started.id);
        return m.documents.built === m.documents.total && m.documents.total === N + 1;
      }, 60_000);
      expect(await hasSpaceIndex(t.pool, candidateId)).toBe(false);
      // Refused before its bulk index build has run.
      await expect(actOnMigration(t.pool, op, TENANT, started.id, "switch", null)).rejects.toMatchObject({
        code: "MIGRATION_NOT_READY",
      });
      // The worker's own maintenance may get there first (it runs every 10 s): either way it turns READY.
      await waitFor(async () => {
        await advanceMigrations(t.pool, "test", SETTINGS);
        return (await getMigration(t.pool, TENANT, started.id)).state === "READY";
      }, 30_000);
      expect(await hasSpaceIndex(t.pool, candidateId)).toBe(true);

      beforeSwitch = Date.now();
      const switched = await actOnMigration(t.pool, op, TENANT, started.id, "switch", null);
      afterSwitch = Date.now();
      expect(switched).toMatchObject({ state: "SWITCHED", active: "local-256", shadow: "local" });
      await new Promise((r) => setTimeout(r, 1_500));

      // The previous space keeps following: a publish after the switch is in both.
      await publishDoc(N + 1);
      await waitFor(async () => {
        const m = await getMigration(t.pool, TENANT, started.id);
        return (await searchable(`doc-${N + 1}`)) && m.documents.built === m.documents.total;
      }, 30_000);

      embeddedBefore = [...spaces.texts.values()].reduce((a, b) => a + b, 0);
      beforeBack = Date.now();
      const back = await actOnMigration(t.pool, op, TENANT, started.id, "switch-back", "compare");
      afterBack = Date.now();
      expect(back).toMatchObject({ state: "SWITCHED_BACK", active: "local", shadow: null });
      await new Promise((r) => setTimeout(r, 1_500));
    } finally {
      reading = false;
      await reader;
    }
    // Switching back embedded nothing: the previous space was kept in step.
    expect([...spaces.texts.values()].reduce((a, b) => a + b, 0) - embeddedBefore).toBe(0);

    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.hits === 0)).toEqual([]);
    // Before the switch only the old space answers; after it only the candidate, until the switch-back.
    expect(answers.filter((a) => a.end < beforeSwitch && a.space !== "local")).toEqual([]);
    const during = answers.filter((a) => a.at > afterSwitch && a.end < beforeBack);
    expect(during.length).toBeGreaterThan(3);
    expect(during.filter((a) => a.space !== "local-256")).toEqual([]);
    expect(answers.filter((a) => a.at > afterBack && a.space !== "local")).toEqual([]);
    expect(publishToSearchable).toBeLessThan(5_000);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM space_pointers WHERE tenant_id = $1`, [TENANT]);
    expect(rows[0].n).toBe(0);
    // One webhook event per step of the migration, none per document at the swaps.
    const events = await t.pool.query(
      `SELECT type, count(*)::int AS n FROM webhook_events WHERE tenant_id = $1 GROUP BY type ORDER BY type`,
      [TENANT],
    );
    expect(events.rows).toEqual([
      { type: "document.searchable", n: N + 2 },
      { type: "migration.ready", n: 1 },
      { type: "migration.started", n: 1 },
      { type: "migration.switched", n: 1 },
      { type: "migration.switched_back", n: 1 },
    ]);
  }, 180_000);

  it("abort leaves the active space untouched and supersedes queued work", async () => {
    const before = await t.pool.query(
      `SELECT document_id, index_version_id FROM search_pointers WHERE tenant_id = $1 ORDER BY document_id`,
      [TENANT],
    );
    await worker.stop(5_000);
    const m = await startMigration(t.pool, op, TENANT, { space: "local-256" }, 8);
    const aborted = await actOnMigration(t.pool, op, TENANT, m.id, "abort", "not now");
    expect(aborted.state).toBe("ABORTED");
    const after = await t.pool.query(
      `SELECT document_id, index_version_id FROM search_pointers WHERE tenant_id = $1 ORDER BY document_id`,
      [TENANT],
    );
    expect(after.rows).toEqual(before.rows);
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS n FROM index_tasks WHERE tenant_id = $1 AND task_type = 'MIGRATE' AND status IN ('PENDING', 'RETRY_WAIT')`,
      [TENANT],
    );
    expect(rows[0].n).toBe(0);
    await expect(actOnMigration(t.pool, op, TENANT, m.id, "switch", null)).rejects.toMatchObject({
      code: "INVALID_STATE",
    });
  });
});
