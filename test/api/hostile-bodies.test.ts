import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";

// Text fields that reach PostgreSQL or an index must be text PostgreSQL can store and a reader can
// read: no NUL or other control characters, no unpaired UTF-16 surrogates (which JSON's \uXXXX
// escapes can spell, and which would be stored silently as U+FFFD). Refused with a stable code,
// before anything is written — never a 500 from the database, never a quiet replacement.
const ADMIN = "hostile-admin-token-0123456789abcdef";

let t: TestDb;
let R: Record<string, any>;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = ADMIN;
  process.env.LOG_LEVEL = "silent";
  const base = "../../app/api/v1";
  R = {
    publish: await import(`${base}/tenants/[tenant]/documents/[key]/versions/route`),
    search: await import(`${base}/tenants/[tenant]/search/route`),
    documents: await import(`${base}/documents/route`),
  };
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
const headers = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };

async function post(route: "publish" | "search", body: string, params: Record<string, string>) {
  const res: Response = await R[route].POST(
    new Request("http://localhost/x", { method: "POST", headers, body }),
    ctx(params),
  );
  return { status: res.status, code: (await res.json())?.error?.code as string | undefined };
}
const publish = (body: unknown) =>
  post("publish", typeof body === "string" ? body : JSON.stringify(body), { tenant: "hostile", key: "doc" });
const search = (body: unknown) => post("search", JSON.stringify(body), { tenant: "hostile" });

async function written(): Promise<string> {
  const r = await t.pool.query(
    `SELECT (SELECT count(*) FROM documents) || '/' || (SELECT count(*) FROM document_versions) || '/' || (SELECT count(*) FROM index_tasks) AS n`,
  );
  return r.rows[0].n;
}

const ok = { title: "Notes", contentType: "text/plain", content: "fine content" };

describe("hostile text in JSON bodies", () => {
  it("control characters in the title, an ACL principal, the abstract or the overview are a 400, not a database error", async () => {
    for (const body of [
      { ...ok, title: "bad\u0000title" },
      { ...ok, title: "bell\u0007" },
      { ...ok, acl: ["group:hr\u0000"] },
      { ...ok, acl: ["group:\u001bhr"] },
      { ...ok, abstract: "sum\u0000mary" },
      { ...ok, overview: "over\u0000view" },
    ]) {
      expect(await publish(body), JSON.stringify(body)).toEqual({ status: 400, code: "VALIDATION_FAILED" });
    }
    expect(await written()).toBe("0/0/0");
  });

  it("an unpaired surrogate escape anywhere in a JSON body is a 400 INVALID_ENCODING, not a silent U+FFFD", async () => {
    for (const body of [
      `{"title":"t","contentType":"text/plain","content":"a\\ud800b"}`,
      `{"title":"t\\udfff","contentType":"text/plain","content":"fine"}`,
      `{"title":"t","contentType":"text/plain","content":"fine","acl":["group:\\udc00"]}`,
      `{"title":"t","contentType":"text/plain","content":"fine","\\ud800":1}`,
    ]) {
      expect(await publish(body), body).toEqual({ status: 400, code: "INVALID_ENCODING" });
    }
    expect(await written()).toBe("0/0/0");
  });

  it("NUL in a search principal, or in the document list's filter text, is a 400, not a database error", async () => {
    expect(await search({ query: "x", principals: ["group:hr\u0000"] })).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
    const res: Response = await R.documents.GET(
      new Request("http://localhost/api/v1/documents?q=a%00b", { headers: { authorization: `Bearer ${ADMIN}` } }),
      ctx({}),
    );
    expect({ status: res.status, code: (await res.json())?.error?.code }).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
  });

  it("what stays allowed: tabs and newlines in abstracts, a properly paired surrogate (emoji), deep nesting refused by shape not by stack", async () => {
    expect((await publish({ ...ok, title: "Notes \ud83d\ude00", abstract: "line one\n\tline two" })).status).toBe(202);
    const deep = `{"title":"t","contentType":"text/plain","content":"x","acl":${"[".repeat(100_000)}"g"${"]".repeat(100_000)}}`;
    expect(await post("publish", deep, { tenant: "hostile", key: "deep" })).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
  });
});

describe("ids, cursors and reasons that used to reach PostgreSQL unchecked", () => {
  const get = async (mod: string, params: object, query = "") => {
    const m = await import(`../../app/api/v1/${mod}/route`);
    const res: Response = await m.GET(new Request(`http://localhost/x${query}`, { headers }), ctx(params));
    return { status: res.status, code: (await res.json())?.error?.code as string | undefined };
  };
  const postTo = async (mod: string, params: object, body: unknown) => {
    const m = await import(`../../app/api/v1/${mod}/route`);
    const res: Response = await m.POST(
      new Request("http://localhost/x", { method: "POST", headers, body: JSON.stringify(body) }),
      ctx(params),
    );
    return { status: res.status, code: (await res.json())?.error?.code as string | undefined };
  };

  it("a task id or task cursor that is not a plain number is a 400 (BigInt() threw on '1e3')", async () => {
    expect(await get("tasks/[taskId]", { taskId: "1e3" })).toEqual({ status: 400, code: "VALIDATION_FAILED" });
    expect(await get("tasks", {}, `?cursor=${encodeURIComponent("1 OR 1=1")}`)).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
    expect(await postTo("tasks/[taskId]/retry", { taskId: "0x10" }, {})).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
  });

  it("a rollback to a version number past PostgreSQL's int is a 400, not a cast error (500)", async () => {
    for (const toVersion of [2147483648, Number.MAX_SAFE_INTEGER]) {
      expect(
        await postTo(
          "tenants/[tenant]/documents/[key]/rollback",
          { tenant: "hostile", key: "doc" },
          { toVersion, reason: "back to it" },
        ),
        String(toVersion),
      ).toEqual({ status: 400, code: "VALIDATION_FAILED" });
    }
  });

  it("a documents cursor must be one this server wrote: a bad timestamp or id is 400 INVALID_CURSOR, not a cast error", async () => {
    const cursor = (v: unknown) => `?cursor=${Buffer.from(JSON.stringify(v)).toString("base64url")}`;
    for (const c of [
      cursor(["1", "00000000-0000-0000-0000-000000000000"]),
      cursor(["2026-11-30T00:00:00.000Z", "' OR 1=1 --"]),
      cursor(["2026-11-30T00:00:00.000Z", "a", "b"]),
      "?cursor=' OR 1=1 --",
    ]) {
      expect(await get("documents", {}, c), c).toEqual({ status: 400, code: "INVALID_CURSOR" });
    }
  });

  it("control characters in an operator's reason or a token name are a 400 and nothing is written", async () => {
    const audits = async () => (await t.pool.query(`SELECT count(*)::int AS n FROM audit_log`)).rows[0].n;
    const before = await audits();
    expect(await postTo("tasks/[taskId]/force-done", { taskId: "1" }, { reason: "done\u0000now" })).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
    expect(await postTo("tasks/retry", {}, { status: "DEAD", reason: "bulk\u0007" })).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
    expect(
      await postTo(
        "tenants/[tenant]/documents/[key]/rollback",
        { tenant: "hostile", key: "doc" },
        { toVersion: 1, reason: "back\u0000" },
      ),
    ).toEqual({ status: 400, code: "VALIDATION_FAILED" });
    expect(await postTo("admin/tokens", {}, { name: "bot\u0000", role: "viewer", tenants: ["*"] })).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
    });
    // Readable whitespace stays allowed in a reason.
    expect(
      (await postTo("tasks/[taskId]/force-done", { taskId: "999999" }, { reason: "line one\nline two" })).status,
    ).toBe(404);
    expect(await audits()).toBe(before);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM api_tokens`)).rows[0].n).toBe(0);
  });
});
