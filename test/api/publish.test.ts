import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { makeDocx } from "../helpers/make-docx";
import { makePdf } from "../helpers/make-pdf";

// Publish route details: Idempotency-Key, base64 and multipart uploads of binary formats.
const TOKEN = "publish-test-token-0123456789";
let t: TestDb;
let route: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
  process.env.LOG_LEVEL = "silent";
  route = await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = (key: string) => ({ params: Promise.resolve({ tenant: "pub", key }) });
const post = async (key: string, body: BodyInit, headers: Record<string, string> = {}) => {
  const res = await route.POST(
    new Request("http://localhost/x", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, ...headers },
      body,
    }),
    ctx(key),
  );
  return { status: res.status, body: await res.json(), replayed: res.headers.get("idempotent-replayed") };
};
const count = async (table: string) => (await t.pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
const jsonBody = (content: string, extra: object = {}) =>
  JSON.stringify({ title: "T", contentType: "text/markdown", content, ...extra });

describe("publish", () => {
  it("the same Idempotency-Key and body returns the first answer; a different body is 409", async () => {
    const h = { "content-type": "application/json", "idempotency-key": "req-0001" };
    const first = await post("idem", jsonBody("# One\n\nfirst body"), h);
    expect(first.status).toBe(202);
    const again = await post("idem", jsonBody("# One\n\nfirst body"), h);
    expect(again).toMatchObject({ status: 202, body: first.body, replayed: "true" });
    const clash = await post("idem", jsonBody("# One\n\na different body"), h);
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await count("document_versions")).toBe(1);
    expect(await count("index_tasks")).toBe(1);
    const bad = await post("idem", jsonBody("x"), { ...h, "idempotency-key": "has spaces in it" });
    expect(bad.status).toBe(400);
  });

  it("publishing identical content without a key is 200 with the same version and no new task", async () => {
    const h = { "content-type": "application/json" };
    const a = await post("same", jsonBody("# Same\n\nunchanged"), h);
    const b = await post("same", jsonBody("# Same\n\nunchanged"), h);
    expect([a.status, b.status]).toEqual([202, 200]);
    expect(b.body).toMatchObject({ versionNumber: 1, taskId: a.body.taskId });
  });

  it("accepts a PDF as base64 and a DOCX as a multipart file; refuses binary sent as text", async () => {
    const pdf = Buffer.from(makePdf([["Pelicans nest on the east pier."]])).toString("base64");
    const r1 = await post(
      "pdf",
      JSON.stringify({ title: "PDF", contentType: "application/pdf", content: pdf, contentEncoding: "base64" }),
      { "content-type": "application/json" },
    );
    expect(r1.status).toBe(202);
    const stored = (
      await t.pool.query(
        `SELECT content, content_type FROM document_versions dv JOIN documents d ON d.id = dv.document_id WHERE d.key = 'pdf'`,
      )
    ).rows[0];
    expect(stored.content_type).toBe("application/pdf");
    expect(stored.content.subarray(0, 5).toString()).toBe("%PDF-");

    const form = new FormData();
    form.set(
      "file",
      new File(
        [Buffer.from(makeDocx([{ style: "Heading1", text: "Rules" }, { text: "Keep the door shut." }]))],
        "rules.docx",
        { type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
      ),
    );
    form.set("acl", "group:a, group:b");
    const r2 = await post("docx", form);
    expect(r2.status).toBe(202);
    const v = (
      await t.pool.query(
        `SELECT dv.title, dv.acl FROM document_versions dv JOIN documents d ON d.id = dv.document_id WHERE d.key = 'docx'`,
      )
    ).rows[0];
    expect(v).toEqual({ title: "rules", acl: ["group:a", "group:b"] });

    const before = await count("document_versions");
    const asText = await post(
      "pdf-text",
      JSON.stringify({ title: "x", contentType: "application/pdf", content: "%PDF-1.4 ..." }),
      { "content-type": "application/json" },
    );
    expect(asText.status).toBe(400);
    const badB64 = await post(
      "pdf-b64",
      JSON.stringify({ title: "x", contentType: "application/pdf", content: "not*base64!", contentEncoding: "base64" }),
      { "content-type": "application/json" },
    );
    expect(badB64.status).toBe(400);
    const noFile = new FormData();
    noFile.set("title", "nothing");
    expect((await post("nofile", noFile)).status).toBe(400);
    expect(await count("document_versions")).toBe(before);
  });
});
