import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { loadConfig } from "../../lib/config";
import { publish } from "../../lib/documents/publish";
import { LocalEmbedder } from "../../lib/embedding";
import type { Embedder } from "../../lib/embedding/types";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import type { Space } from "../../lib/spaces/types";
import { actOnMigration, getMigration, startMigration } from "../../lib/spaces/repository";
import { advanceMigrations } from "../../lib/spaces/maintenance";
import { personPrincipal } from "../../lib/auth/principal";
import { DomainError } from "../../lib/domain/errors";
import { putEvaluationSet } from "../../lib/evaluation/repository";
import { searchAnswer } from "../../lib/search/search";
import { Worker } from "../../worker/loop";

// The quality gate of an index-space switch: a candidate whose model answers noise is refused with
// EVALUATION_REGRESSED (both nDCG@10 and the per-query losses in the details) and left READY,
// never switched by autoSwitch either; a forced switch with a reason goes through and is audited
// as migration.force_switch; a tenant without a set is switched ungated, and the migration says so.

const TENANT = "gate";
const OTHER = "ungated";
const SETTINGS = { indexMemoryMb: 64, parallelWorkers: 0 };
const operator = personPrincipal("ops@example.com", "operator", null);

/** An embedder that answers noise: a fresh random unit vector for every text, query or chunk. */
class NoiseEmbedder implements Embedder {
  readonly model = "noise-model";
  constructor(readonly dimensions: number) {}
  async embed(texts: string[]): Promise<number[][]> {
    return texts.map(() => {
      const v = Array.from({ length: this.dimensions }, () => Math.random() - 0.5);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
  }
}

/** Every space's embedder as usual, except the noise space's: the worker builds with it, the gate searches with it. */
class TestSpaces extends SpaceEmbedders {
  private readonly noise = new NoiseEmbedder(64);
  override embedderFor(space: Space): Embedder {
    return space.model === "noise-model" ? this.noise : super.embedderFor(space);
  }
}

let t: TestDb;
let worker: Worker;
const spaces = new TestSpaces({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });
const TOPICS = [
  "refund card return",
  "vacation carry over",
  "expense receipt euros",
  "laptop replacement desk",
  "pension contribution salary",
  "overtime time off",
  "parking garage permit",
  "badge access door",
  "travel train booking",
  "printer toner paper",
  "canteen lunch menu",
  "security password rotation",
];
const docText = (i: number) =>
  `# Policy ${i}\n\nThis policy is about ${TOPICS[i]}. Everything on ${TOPICS[i]} is described here, step by step, for every office.`;

async function publishAll(tenant: string) {
  for (let i = 0; i < TOPICS.length; i++)
    await publish(t.pool, {
      tenant,
      key: `policy-${i}`,
      title: `Policy ${i}`,
      contentType: "text/markdown",
      content: Buffer.from(docText(i)),
      acl: [],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 3,
    });
}

const count = async (sql: string, values: unknown[]) => (await t.pool.query(sql, values)).rows[0].n as number;

/** Starts a migration to the noise space and waits until it is READY (built, indexed). */
async function readyMigration(tenant: string, autoSwitch = false): Promise<string> {
  const mig = await startMigration(t.pool, operator, tenant, { space: "noise-64", autoSwitch }, 3);
  await waitFor(async () => (await getMigration(t.pool, tenant, mig.id)).documents.built === TOPICS.length, 60_000);
  // Not the gated path yet: BUILDING → READY only (autoSwitch is off while the index is built).
  await advanceMigrations(t.pool, "test", SETTINGS, { spaces, tolerance: 0.02 });
  return mig.id;
}

beforeAll(async () => {
  t = await createTestDb();
  await t.pool.query(
    `INSERT INTO embedding_spaces (name, provider, model, dimensions, api_key_env, chunker_version)
     VALUES ('noise-64', 'openai', 'noise-model', 64, 'NOISE_KEY', 'md-heading-v2')`,
  );
  const cfg = loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "10", LOG_LEVEL: "silent" });
  worker = new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: "gate-w",
    concurrency: 2,
    cfg,
    embedder: spaces.preset!,
    spaces,
  });
  await worker.start();
  await publishAll(TENANT);
  await publishAll(OTHER);
  await waitFor(
    async () => (await count(`SELECT count(*)::int AS n FROM search_pointers`, [])) === 2 * TOPICS.length,
    60_000,
  );
  await putEvaluationSet(t.pool, operator, TENANT, {
    queries: TOPICS.map((topic, i) => ({ query: topic, relevant: [`policy-${i}`] })),
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop(5_000);
  await t?.close();
});

describe("the switch's quality gate", () => {
  let migId = "";

  it("refuses a candidate that answers noise with EVALUATION_REGRESSED, and leaves it READY", async () => {
    migId = await readyMigration(TENANT);
    expect((await getMigration(t.pool, TENANT, migId)).state).toBe("READY");
    const err = await actOnMigration(t.pool, operator, TENANT, migId, "switch", null, {
      spaces,
      tolerance: 0.02,
    }).catch((e: DomainError) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("EVALUATION_REGRESSED");
    const d = (err as DomainError).details as {
      activeNdcgAt10: number;
      candidateNdcgAt10: number;
      tolerance: number;
      losses: { query: string; active: number; candidate: number; lost: { key: string }[] }[];
    };
    expect(d.activeNdcgAt10).toBeGreaterThan(0.8);
    expect(d.candidateNdcgAt10).toBeLessThan(d.activeNdcgAt10 - 0.02);
    expect(d.losses.length).toBeGreaterThan(0);
    expect(d.losses[0].candidate).toBeLessThan(d.losses[0].active);
    expect(d.losses[0].lost.length).toBeGreaterThan(0);
    // Nothing moved: still READY, search still answers from the active space; both gate runs stored.
    expect((await getMigration(t.pool, TENANT, migId)).state).toBe("READY");
    const a = await searchAnswer(t.pool, spaces, { tenant: TENANT, query: TOPICS[0], topK: 3, principals: [] });
    expect(a.space.name).toBe("local");
    const runs = await t.pool.query(
      `SELECT r.trigger, r.state, s.name, r.ndcg_at_10 FROM evaluation_runs r JOIN embedding_spaces s ON s.id = r.space_id
        WHERE r.migration_id = $1 ORDER BY r.id`,
      [migId],
    );
    expect(runs.rows.map((r) => [r.trigger, r.state, r.name])).toEqual([
      ["gate", "DONE", "local"],
      ["gate", "DONE", "noise-64"],
    ]);
    expect(runs.rows[0].ndcg_at_10).toBeCloseTo(d.activeNdcgAt10, 12);
    expect(runs.rows[1].ndcg_at_10).toBeCloseTo(d.candidateNdcgAt10, 12);
    expect(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action LIKE 'migration.%switch'`, [])).toBe(0);
  }, 120_000);

  it("never lets autoSwitch switch it; the refusal is recorded on the migration", async () => {
    await t.pool.query(`UPDATE space_migrations SET auto_switch = true WHERE id = $1`, [migId]);
    const out = await advanceMigrations(t.pool, "test", SETTINGS, { spaces, tolerance: 0.02 });
    expect(out.switched).toEqual([]);
    const m = await getMigration(t.pool, TENANT, migId);
    expect(m.state).toBe("READY");
    expect(m.evaluation).toMatchObject({ evaluated: true, regressed: true, autoSwitchRefusedAt: expect.any(String) });
    // The next pass does not evaluate again (no new gate runs) while the refusal stands.
    const before = await count(`SELECT count(*)::int AS n FROM evaluation_runs WHERE migration_id = $1`, [migId]);
    expect((await advanceMigrations(t.pool, "test", SETTINGS, { spaces, tolerance: 0.02 })).switched).toEqual([]);
    expect(await count(`SELECT count(*)::int AS n FROM evaluation_runs WHERE migration_id = $1`, [migId])).toBe(before);
    await t.pool.query(`UPDATE space_migrations SET auto_switch = false WHERE id = $1`, [migId]);
  }, 120_000);

  it("switches when forced with a reason, and audits the override", async () => {
    const noReason = await actOnMigration(t.pool, operator, TENANT, migId, "switch", { force: true }, { spaces }).catch(
      (e: DomainError) => e,
    );
    expect((noReason as DomainError).code).toBe("VALIDATION_FAILED");
    const m = await actOnMigration(
      t.pool,
      operator,
      TENANT,
      migId,
      "switch",
      { force: true, reason: "noise on purpose: testing the gate" },
      { spaces, tolerance: 0.02 },
    );
    expect(m.state).toBe("SWITCHED");
    expect(m.evaluation).toMatchObject({
      evaluated: true,
      regressed: true,
      forced: true,
      forceReason: "noise on purpose: testing the gate",
    });
    const audit = await t.pool.query(
      `SELECT action, actor, reason, detail FROM audit_log WHERE action LIKE 'migration.%switch' ORDER BY id`,
    );
    expect(audit.rows.map((r) => [r.action, r.actor, r.reason])).toEqual([
      ["migration.force_switch", "user:ops@example.com", "noise on purpose: testing the gate"],
    ]);
    expect(audit.rows[0].detail.gate).toMatchObject({ forced: true, regressed: true });
    const a = await searchAnswer(t.pool, spaces, { tenant: TENANT, query: TOPICS[0], topK: 3, principals: [] });
    expect(a.space.name).toBe("noise-64");
    await actOnMigration(t.pool, operator, TENANT, migId, "switch-back", "back to sense");
  }, 120_000);

  it("switches a tenant without a set ungated, and says so", async () => {
    const id = await readyMigration(OTHER);
    const m = await actOnMigration(t.pool, operator, OTHER, id, "switch", null, { spaces, tolerance: 0.02 });
    expect(m.state).toBe("SWITCHED");
    expect(m.evaluation).toMatchObject({ evaluated: false, reason: "NO_EVALUATION_SET" });
    expect(await count(`SELECT count(*)::int AS n FROM evaluation_runs WHERE migration_id = $1`, [id])).toBe(0);
  }, 120_000);
});
