import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { spaceFor } from "../helpers/spaces";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider";
import { publish } from "../../lib/documents/publish";
import { search } from "../../lib/search/search";
import { OpenAIEmbedder } from "../../lib/embedding/openai";
import { Worker } from "../../worker/loop";
import { loadConfig } from "../../lib/config";
import { makePdf } from "../helpers/make-pdf";
import { makeDocx } from "../helpers/make-docx";

// The pipeline against the OpenAI-compatible fake provider (real HTTP), in-process. Worker
// processes that crash on purpose (fault switches) are in test/faults/fault-matrix.test.ts.
let t: TestDb;
let fake: FakeProvider;
const DIMS = 384;

beforeAll(async () => {
  t = await createTestDb();
  fake = await startFakeProvider({ dimensions: DIMS });
});
afterAll(async () => {
  await fake?.close();
  await t?.close();
});
beforeEach(async () => {
  fake.reset();
  await resetContent(t.pool);
  // The fake provider's index space is every tenant's, as the worker's registration makes it at start.
  await spaceFor(t.pool, embedder(), { asDefault: true, allTenants: true });
});

const providerEnv = () => ({
  EMBEDDING_PROVIDER: "openai",
  OPENAI_API_KEY: "test-key",
  OPENAI_BASE_URL: fake.url,
  EMBEDDING_MODEL: "fake-embed",
  EMBEDDING_DIMENSIONS: String(DIMS),
  EMBEDDING_TIMEOUT_MS: "5000",
});
const embedder = () =>
  new OpenAIEmbedder({ apiKey: "test-key", baseURL: fake.url, model: "fake-embed", dimensions: DIMS, timeoutMs: 5000 });
function worker(id: string, env: Record<string, string> = {}) {
  const cfg = loadConfig({
    POLL_INTERVAL_MS: "50",
    LEASE_SECONDS: "10",
    LOG_LEVEL: "silent",
    EMBED_BATCH_SIZE: "8",
    RETRY_BASE_SECONDS: "30",
    ...providerEnv(),
    ...env,
  });
  return new Worker({ pool: t.pool, databaseUrl: t.url, workerId: id, concurrency: 1, cfg, embedder: embedder() });
}

function paragraphs(n: number, edit?: { index: number; text: string }): string {
  const out = ["# Staff handbook"];
  for (let i = 0; i < n; i++) {
    out.push(
      edit?.index === i
        ? edit.text
        : `Paragraph ${i}: the rule for case ${i} says that requests about topic ${i * 37} go to desk ${i % 9}, are answered within ${i + 2} days, and are logged in register ${String.fromCharCode(65 + (i % 26))}. Escalations for case ${i} go to the duty manager of floor ${i % 5}, who replies by the end of day ${i % 7} of the week and copies team ${(i * 13) % 17} on every answer.`,
    );
  }
  return out.join("\n\n");
}
const pub = (key: string, content: string | Buffer, contentType = "text/markdown", tenant = "ix", acl: string[] = []) =>
  publish(t.pool, {
    tenant,
    key,
    title: key,
    contentType,
    content: Buffer.isBuffer(content) ? content : Buffer.from(content),
    acl,
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 8,
  });
const task = async (id: string | null) =>
  (await t.pool.query(`SELECT * FROM index_tasks WHERE task_id = $1`, [id])).rows[0];
const q = (query: string, tenant = "ix", principals: string[] = []) =>
  search(t.pool, embedder(), { tenant, query, topK: 10, principals });

describe("incremental embedding", () => {
  it("v2 of a 40-paragraph document with one paragraph edited embeds only the changed chunk(s)", async () => {
    const w = worker("inc");
    await w.start();
    try {
      const v1 = await pub("handbook", paragraphs(40));
      await waitFor(async () => (await task(v1.taskId)).status === "SUCCEEDED");
      const full = fake.textsEmbedded;
      expect(full).toBeGreaterThanOrEqual(10);
      fake.reset();
      const v2 = await pub(
        "handbook",
        paragraphs(40, {
          index: 17,
          text: "Paragraph 17: this rule was rewritten; requests about lost badges go to the front desk on the ground floor.",
        }),
      );
      await waitFor(async () => (await task(v2.taskId)).status === "SUCCEEDED");
      const changed = fake.inputs.flat();
      expect(changed.length).toBeGreaterThanOrEqual(1);
      expect(changed.length).toBeLessThanOrEqual(2);
      expect(changed.some((s) => s.includes("lost badges"))).toBe(true);
      const t2 = await task(v2.taskId);
      expect(t2.chunks_total).toBe(full);
      expect(t2.chunks_reused).toBe(full - changed.length);
      expect(t2.chunks_reused / t2.chunks_total).toBeGreaterThan(0.8);
      expect((await q("requests about lost badges go to the front desk"))[0]).toMatchObject({
        documentKey: "handbook",
        versionNumber: 2,
      });
    } finally {
      await w.stop(3000);
    }
  });
});

describe("provider failures", () => {
  it("429 → RETRY_WAIT / EMBEDDING_RATE_LIMITED, nothing written", async () => {
    fake.mode("429");
    const w = worker("rl");
    await w.start();
    const r = await pub("limited", paragraphs(3));
    await waitFor(async () => (await task(r.taskId)).status === "RETRY_WAIT");
    await w.stop(3000);
    expect(await task(r.taskId)).toMatchObject({ status: "RETRY_WAIT", error_code: "EMBEDDING_RATE_LIMITED" });
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM index_versions`)).rows[0].n).toBe(0);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM chunks`)).rows[0].n).toBe(0);
  });

  for (const mode of ["wrong-dimension", "wrong-count"] as const) {
    it(`${mode} → DEAD / EMBEDDING_INVALID_RESPONSE, nothing written`, async () => {
      fake.mode(mode);
      const w = worker(mode);
      await w.start();
      const r = await pub(mode, paragraphs(3));
      await waitFor(async () => (await task(r.taskId)).status === "DEAD");
      await w.stop(3000);
      expect((await task(r.taskId)).error_code).toBe("EMBEDDING_INVALID_RESPONSE");
      expect((await t.pool.query(`SELECT count(*)::int AS n FROM chunks`)).rows[0].n).toBe(0);
      expect((await t.pool.query(`SELECT count(*)::int AS n FROM search_pointers`)).rows[0].n).toBe(0);
    });
  }
});

describe("binary formats, tenants and ACLs", () => {
  it("a PDF and a DOCX become searchable", async () => {
    const w = worker("bin");
    await w.start();
    try {
      const pdf = await pub(
        "pdf-doc",
        Buffer.from(makePdf([["The observatory dome rotates on brass rails."], ["Second page about tide tables."]])),
        "application/pdf",
      );
      const docx = await pub(
        "docx-doc",
        Buffer.from(
          makeDocx([{ style: "Heading1", text: "Garden rules" }, { text: "Water the orchids every Tuesday morning." }]),
        ),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      );
      await waitFor(
        async () => (await task(pdf.taskId)).status === "SUCCEEDED" && (await task(docx.taskId)).status === "SUCCEEDED",
      );
      expect((await q("observatory dome rotates on brass rails"))[0].documentKey).toBe("pdf-doc");
      expect((await q("water the orchids every Tuesday"))[0]).toMatchObject({
        documentKey: "docx-doc",
        sectionPath: "Garden rules",
      });
    } finally {
      await w.stop(3000);
    }
  });

  it("tenant B never sees tenant A's chunks; a principal outside the ACL gets no hits from that document", async () => {
    const w = worker("acl");
    await w.start();
    try {
      const a = await pub(
        "secret",
        "# Payroll\n\nSalaries are paid on the last Friday of the month.",
        "text/markdown",
        "tenant-a",
        ["group:finance"],
      );
      const b = await pub("public", "# Canteen\n\nLunch is served from noon.", "text/markdown", "tenant-b");
      await waitFor(
        async () => (await task(a.taskId)).status === "SUCCEEDED" && (await task(b.taskId)).status === "SUCCEEDED",
      );
      const fromB = await q("Salaries are paid on the last Friday", "tenant-b", ["group:finance"]);
      expect(fromB.map((h) => h.documentKey)).toEqual(["public"]);
      expect(await q("Salaries are paid on the last Friday", "tenant-a", ["group:sales"])).toEqual([]);
      expect(await q("Salaries are paid on the last Friday", "tenant-a", [])).toEqual([]);
      expect((await q("Salaries are paid on the last Friday", "tenant-a", ["group:finance"]))[0].documentKey).toBe(
        "secret",
      );
    } finally {
      await w.stop(3000);
    }
  });
});
