import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";

// The search route's mode: hybrid by default, each mode on request, and a bad mode refused before
// anything runs.
const TOKEN = "test-bootstrap-token-0123456789";
let t: TestDb;
let route: typeof import("../../app/api/v1/tenants/[tenant]/search/route");
let publish: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
const req = (body: unknown) =>
  new Request("http://localhost/x", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
  process.env.LOG_LEVEL = "silent";
  route = await import("../../app/api/v1/tenants/[tenant]/search/route");
  publish = await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
  const w = testWorker(t, "route");
  await w.start();
  const docs = {
    manual:
      "# Pump manual\n\nBefore servicing the circulation pump, isolate the supply and drain the housing. Replace the seal kit XQ-7731-B every two years and check the bearing for play.",
    ...Object.fromEntries(
      ["XQ-7731-C", "XQ-7713-B", "XQ-7731-D", "XQ-7371-B"].map((c, i) => [
        `part-${i}`,
        `# Part ${c}\n\nPart ${c} seal kit.`,
      ]),
    ),
  };
  for (const [key, content] of Object.entries(docs)) {
    expect(
      (
        await publish.POST(
          new Request("http://localhost/x", {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
            body: JSON.stringify({ title: key, contentType: "text/markdown", content }),
          }),
          ctx({ tenant: "rt", key }),
        )
      ).status,
    ).toBe(202);
  }
  await waitFor(
    async () =>
      (await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks WHERE status = 'SUCCEEDED'`)).rows[0].n ===
      Object.keys(docs).length,
    60_000,
  );
  await w.stop(2000);
}, 120_000);
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

async function keys(body: unknown): Promise<string[]> {
  const r = await route.POST(req(body), ctx({ tenant: "rt" }));
  expect(r.status).toBe(200);
  return (await r.json()).hits.map((h: { documentKey: string }) => h.documentKey);
}

describe("POST /api/v1/tenants/{tenant}/search mode", () => {
  it("is hybrid by default: the exact code's document is found, as in text mode and unlike vector mode", async () => {
    const q = { query: "XQ-7731-B", topK: 2 };
    expect(await keys({ ...q, mode: "text" })).toEqual(["manual"]);
    expect(await keys({ ...q, mode: "vector" })).not.toContain("manual");
    expect(await keys(q)).toContain("manual");
    expect(await keys({ ...q, mode: "hybrid" })).toEqual(await keys(q));
  });

  it("refuses an unknown mode with 400 VALIDATION_FAILED", async () => {
    const r = await route.POST(req({ query: "XQ-7731-B", mode: "fuzzy" }), ctx({ tenant: "rt" }));
    expect(r.status).toBe(400);
    expect((await r.json()).error.code).toBe("VALIDATION_FAILED");
  });
});
