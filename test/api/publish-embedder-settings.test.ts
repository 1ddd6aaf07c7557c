import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";

// A publish is judged before the embedding settings are used: a request the server refuses anyway
// gets its own 4xx even while the embedder cannot be built (here: openai without a key), and writes
// nothing. Only the abstract/overview token check asks for the model.
const TOKEN = "publish-embedder-token-0123456789";
let t: TestDb;
let route: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
  process.env.LOG_LEVEL = "silent";
  process.env.EMBEDDING_PROVIDER = "openai";
  delete process.env.OPENAI_API_KEY;
  route = await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const post = async (body: object) => {
  const req = new Request("http://localhost/x", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const res = await route.POST(req, { params: Promise.resolve({ tenant: "emb", key: "doc" }) });
  return { status: res.status, body: await res.json() };
};

it("an unsupported content type and an empty document are refused with their own codes while the embedder cannot be built", async () => {
  expect(await post({ title: "T", contentType: "application/x-unknown", content: "x" })).toMatchObject({
    status: 415,
    body: { error: { code: "UNSUPPORTED_DOCUMENT" } },
  });
  expect(await post({ title: "T", contentType: "text/markdown", content: "   " })).toMatchObject({
    status: 400,
    body: { error: { code: "EMPTY_DOCUMENT" } },
  });
  expect((await t.pool.query(`SELECT count(*)::int AS n FROM document_versions`)).rows[0].n).toBe(0);
});
