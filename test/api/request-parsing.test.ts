import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";

// Request parsing at the edge: sizes enforced while the body streams, strict UTF-8, JSON only as
// JSON, no control characters in text, ids inside their column's range. Each refusal has a stable
// code and writes nothing.
const ADMIN = "parse-admin-token-0123456789abcdef";

let t: TestDb;
let R: Record<string, any>;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = ADMIN;
  process.env.LOG_LEVEL = "silent";
  process.env.MAX_CONTENT_BYTES = "4096";
  const base = "../../app/api/v1";
  R = {
    publish: await import(`${base}/tenants/[tenant]/documents/[key]/versions/route`),
    task: await import(`${base}/tasks/[taskId]/route`),
    retry: await import(`${base}/tasks/[taskId]/retry/route`),
  };
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
const auth = { authorization: `Bearer ${ADMIN}` };
const json = { ...auth, "content-type": "application/json" };

function streamOf(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent++ >= chunks) return c.close();
      c.enqueue(new TextEncoder().encode(" ".repeat(size)));
    },
  });
}

async function publishRaw(headers: Record<string, string>, body: BodyInit, key = "doc") {
  const res: Response = await R.publish.POST(
    new Request("http://localhost/x", { method: "POST", headers, body, duplex: "half" } as RequestInit),
    ctx({ tenant: "parse", key }),
  );
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function contentTables(): Promise<string> {
  const r = await t.pool.query(
    `SELECT (SELECT count(*) FROM documents) || '/' || (SELECT count(*) FROM document_versions) || '/' || (SELECT count(*) FROM index_tasks) AS n`,
  );
  return r.rows[0].n;
}

describe("request parsing", () => {
  it("a JSON body sent as text/plain (or with no type) is a 415", async () => {
    const body = JSON.stringify({ title: "t", contentType: "text/plain", content: "hello" });
    const plain = await publishRaw({ ...auth, "content-type": "text/plain" }, body);
    expect(plain).toMatchObject({ status: 415, body: { error: { code: "UNSUPPORTED_MEDIA_TYPE" } } });
    // fetch gives a string body text/plain;charset=UTF-8 when nobody says otherwise.
    const untyped = await publishRaw(auth, body);
    expect(untyped.status).toBe(415);
    expect(await contentTables()).toBe("0/0/0");
  });

  it("a chunked body past the limit is refused while it streams (413), with no Content-Length to trust", async () => {
    const r = await publishRaw(json, streamOf(10_000, 1024));
    expect(r).toMatchObject({ status: 413, body: { error: { code: "PAYLOAD_TOO_LARGE" } } });
    expect(await contentTables()).toBe("0/0/0");
  });

  it("malformed UTF-8 is a 400 INVALID_ENCODING, in the JSON body and in an uploaded text file", async () => {
    const bytes = Buffer.concat([
      Buffer.from(`{"title":"t","contentType":"text/plain","content":"caf`),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(`"}`),
    ]);
    const r = await publishRaw(json, new Uint8Array(bytes));
    expect(r).toMatchObject({ status: 400, body: { error: { code: "INVALID_ENCODING" } } });
    const form = new FormData();
    form.set("file", new File([new Uint8Array([0x68, 0x69, 0xff, 0xfe])], "notes.txt", { type: "text/plain" }));
    const up = await publishRaw(auth, form);
    expect(up).toMatchObject({ status: 400, body: { error: { code: "INVALID_ENCODING" } } });
    expect(await contentTables()).toBe("0/0/0");
  });

  it("control characters in text content are a 400 INVALID_CONTENT; tabs and newlines are fine", async () => {
    const nul = await publishRaw(
      json,
      JSON.stringify({ title: "t", contentType: "text/plain", content: "before\u0000after" }),
    );
    expect(nul).toMatchObject({ status: 400, body: { error: { code: "INVALID_CONTENT" } } });
    const esc = await publishRaw(
      json,
      JSON.stringify({ title: "t", contentType: "text/markdown", content: "# T\n\nbell \u0007 here" }),
    );
    expect(esc.status).toBe(400);
    expect(await contentTables()).toBe("0/0/0");
    const ok = await publishRaw(
      json,
      JSON.stringify({ title: "t", contentType: "text/plain", content: "col1\tcol2\r\nline two" }),
      "fine",
    );
    expect(ok.status).toBe(202);
  });

  it("a task id past the bigint range is a 400, not a 500", async () => {
    for (const id of ["9223372036854775808", "9999999999999999999"]) {
      const res: Response = await R.task.GET(new Request("http://localhost/x", { headers: auth }), ctx({ taskId: id }));
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("VALIDATION_FAILED");
      const retry: Response = await R.retry.POST(
        new Request("http://localhost/x", { method: "POST", headers: json, body: "{}" }),
        ctx({ taskId: id }),
      );
      expect(retry.status).toBe(400);
    }
    const max: Response = await R.task.GET(
      new Request("http://localhost/x", { headers: auth }),
      ctx({ taskId: "9223372036854775807" }),
    );
    expect(max.status).toBe(404);
  });
});
