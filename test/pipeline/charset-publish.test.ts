// Declared charsets end to end: the publish route accepts a Latin-1 page published with its
// charset, stores what the worker needs to read it, and the worker indexes the accented text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { search } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";

const TOKEN = "charset-publish-token-0123456789";
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

const latin1 = (s: string) => Buffer.from(Uint8Array.from(s, (c) => c.charCodeAt(0)));
const post = async (key: string, body: object) => {
  const res = await route.POST(
    new Request("http://localhost/x", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ tenant: "cs", key }) },
  );
  return { status: res.status, body: await res.json() };
};
const b64 = (content: string, contentType: string, extra: object = {}) => ({
  title: "T",
  contentType,
  content: latin1(content).toString("base64"),
  contentEncoding: "base64",
  ...extra,
});
const stored = async (key: string) =>
  (
    await t.pool.query(
      `SELECT v.content_type FROM document_versions v JOIN documents d ON d.id = v.document_id WHERE d.key = $1 ORDER BY v.version_number DESC LIMIT 1`,
      [key],
    )
  ).rows[0]?.content_type;
const versions = async () => (await t.pool.query(`SELECT count(*)::int AS n FROM document_versions`)).rows[0].n;

const PAGE =
  "<html><body><h1>Cr\u00e8me br\u00fbl\u00e9e</h1><p>La cr\u00e8me br\u00fbl\u00e9e se sert ti\u00e8de, caram\u00e9lis\u00e9e \u00e0 la minute.</p></body></html>";

describe("publishing text in a declared charset", () => {
  it("a Latin-1 HTML body published as iso-8859-1 is accepted, stored with its charset, and indexed", async () => {
    const r = await post("latin", b64(PAGE, "text/html; charset=ISO-8859-1"));
    expect(r.status).toBe(202);
    expect(await stored("latin")).toBe("text/html; charset=windows-1252"); // the WHATWG name it is read as
    const w = testWorker(t, "cs-1", {}, 1);
    await w.start();
    try {
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [r.body.taskId])).rows[0]?.status ===
          "SUCCEEDED",
      );
    } finally {
      await w.stop(3000);
    }
    const chunks = (await t.pool.query(`SELECT section_path, text FROM chunks ORDER BY ordinal`)).rows;
    expect(chunks).toEqual([
      {
        section_path: "Cr\u00e8me br\u00fbl\u00e9e",
        text: "La cr\u00e8me br\u00fbl\u00e9e se sert ti\u00e8de, caram\u00e9lis\u00e9e \u00e0 la minute.",
      },
    ]);
    const hits = await search(t.pool, new LocalEmbedder(384), {
      tenant: "cs",
      query: "cr\u00e8me br\u00fbl\u00e9e ti\u00e8de",
      topK: 3,
      principals: [],
    });
    expect(hits[0]).toMatchObject({ documentKey: "latin" });
  });

  it("the UTF-8 default is as strict as before: Latin-1 bytes without a charset are 400 INVALID_ENCODING, nothing written", async () => {
    const before = await versions();
    const r = await post("no-charset", b64(PAGE, "text/html"));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_ENCODING");
    expect(r.body.error.message).toBe("content is not valid UTF-8");
    expect(await versions()).toBe(before);
  });

  it("a charset nobody can decode is 415 UNSUPPORTED_DOCUMENT; bytes invalid in a declared multi-byte charset are 400", async () => {
    const before = await versions();
    const r = await post("klingon", b64("hello", "text/plain; charset=x-klingon"));
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe("UNSUPPORTED_DOCUMENT");
    const bad = await post("bad-sjis", {
      title: "T",
      contentType: "text/plain; charset=shift_jis",
      content: Buffer.from([0x82, 0xa0, 0x82]).toString("base64"),
      contentEncoding: "base64",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("INVALID_ENCODING");
    expect(await versions()).toBe(before);
  });

  it("content sent as a JSON string is UTF-8 whatever the label; HTML whose <meta> claims otherwise is stored as utf-8", async () => {
    const page = '<meta charset="iso-8859-1"><p>na\u00efve caf\u00e9</p>';
    const r = await post("json-html", { title: "T", contentType: "text/html; charset=iso-8859-1", content: page });
    expect(r.status).toBe(202);
    expect(await stored("json-html")).toBe("text/html; charset=utf-8");
    const md = await post("json-md", {
      title: "T",
      contentType: "text/markdown; charset=iso-8859-1",
      content: "# Caf\u00e9\n\ncr\u00e8me",
    });
    expect(md.status).toBe(202);
    expect(await stored("json-md")).toBe("text/markdown");
  });

  it("a page declaring its charset only in <meta> is accepted as uploaded bytes and keeps its bare type", async () => {
    const page =
      '<html><head><meta charset="windows-1252"></head><body><p>\u0093quoted\u0094 \u0080 5</p></body></html>';
    const r = await post("meta-only", b64(page, "text/html"));
    expect(r.status).toBe(202);
    expect(await stored("meta-only")).toBe("text/html"); // the worker sniffs the same <meta>
  });
});
