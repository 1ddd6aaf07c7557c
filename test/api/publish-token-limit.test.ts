import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { spaceFor } from "../helpers/spaces";

// The abstract and the overview are embedded whole. With a model whose tokenizer is known, one over
// its input limit is refused at publish (it would fail at the provider on every attempt). The model
// is the tenant's active index space's, which embeds its builds, not the server's embedder.
const ADMIN = "token-limit-admin-token-0123456789";
let t: TestDb;
let route: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
beforeAll(async () => {
  t = await createTestDb();
  Object.assign(process.env, {
    DATABASE_URL: t.url,
    INDEXWRIGHT_BOOTSTRAP_TOKEN: ADMIN,
    LOG_LEVEL: "silent",
    EMBEDDING_PROVIDER: "openai",
    OPENAI_API_KEY: "sk-test-not-used",
    OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    EMBEDDING_MODEL: "text-embedding-3-small",
  });
  route = await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const publish = async (key: string, extra: object, tenant = "tl") => {
  const res = await route.POST(
    new Request("http://localhost/x", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ title: key, contentType: "text/markdown", content: "# Doc\n\nSome text.", ...extra }),
    }),
    { params: Promise.resolve({ tenant, key }) },
  );
  return { status: res.status, body: await res.json() };
};

describe("abstract and overview within the model's input tokens", () => {
  it("an overview over 8191 tokens of text-embedding-3-small is 400 TEXT_TOO_LONG_FOR_MODEL and nothing is written; one within it is accepted", async () => {
    // ~49,000 characters of short numbered words: well over 8191 cl100k tokens, under the 50,000-character field limit.
    const long = Array.from({ length: 7000 }, (_, i) => `w${i}x`).join(" ");
    expect(long.length).toBeLessThan(50_000);
    await spaceFor(t.pool, { model: "text-embedding-3-small", dimensions: 1536 }, { tenants: ["tl"] });
    const refused = await publish("long", { overview: long });
    expect([refused.status, refused.body.error.code]).toEqual([400, "TEXT_TOO_LONG_FOR_MODEL"]);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM documents`)).rows[0].n).toBe(0);
    const ok = await publish("short", { overview: long.slice(0, 4000), abstract: "A short abstract." });
    expect(ok.status).toBe(202);
    // A tenant on the local space (the default) is measured by its model, whose limit is in bytes
    // the chunker keeps to: the same overview is taken, whatever the server's own embedder is.
    expect((await publish("long", { overview: long }, "tl-local")).status).toBe(202);
  });
});
