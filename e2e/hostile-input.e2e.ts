import { request as playwrightRequest, type APIRequestContext, type APIResponse } from "@playwright/test";
import type pg from "pg";
import { E2E_TOKEN, expect, test, uniqueKey } from "./fixtures";
import { watchRequests } from "./support/contract";
import { E2E_PORTS } from "./services/settings";
import { rawRequest, type RawRequest } from "./support/raw-http";
import { connectAppDb, contentSnapshot, snapshotDiff, type Snapshot } from "./support/content-snapshot";
import { docxBomb } from "../test/helpers/hostile-files";

// Hostile input against the running server, over real HTTP: every request here is malformed,
// oversized, ambiguous or not allowed, and each must be refused with its documented status and
// error code while the content tables stay byte-identical. What the client library cannot send
// (bytes that are not UTF-8, chunked or lying bodies, repeated headers, unnormalised paths) goes
// over a bare socket.

const APP_URL = `http://127.0.0.1:${E2E_PORTS.app}`;
const BOOTSTRAP = E2E_TOKEN;
/** base64("not a pdf"): declared as a PDF, it fails parsing (PARSE_ERROR, not retryable) and goes DEAD at once. */
const NOT_A_PDF = "bm90IGEgcGRm";

type Category =
  | "encoding"
  | "types"
  | "sizes"
  | "nesting"
  | "paths"
  | "content-type"
  | "methods"
  | "other-tenant"
  | "sql"
  | "headers"
  | "principals";

/** One answer, from either client: the error code is read from the JSON error shape when there is one. */
type Reply = { status: number; code: string | null; headers: Record<string, string>; body: any; text: string };

type Seed = {
  stamp: string;
  /** Two tenants of this spec alone; a tenant-limited token holds only `ta`. */
  ta: string;
  tb: string;
  /** ta: ACL group:hr */
  hrDoc: string;
  /** ta: empty ACL (the whole tenant may read it) */
  publicDoc: string;
  /** tb: ACL user:bob@example.test */
  bobDoc: string;
  /** tb: a broken PDF whose INDEX task is DEAD */
  brokenDoc: string;
  deadTaskB: string;
  /** a key that does not exist in ta: a publish that slipped through would create it */
  newKey: string;
  viewerA: string;
  operatorA: string;
  /** session cookies (iw_session values) of the two tokens above */
  viewerCookie: string;
  operatorCookie: string;
};

type Case = {
  category: Category;
  name: string;
  send: (s: Seed) => Promise<Reply>;
  expectStatus: number;
  /** null: a success without an error body (search, filtered lists), see `check`. */
  expectCode: string | null;
  /** Further expectations; returns what is wrong, or undefined. */
  check?: (r: Reply, s: Seed) => string | undefined;
};

let api: APIRequestContext;

function replyOf(status: number, headers: Record<string, string>, text: string): Reply {
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  const code =
    body && typeof body === "object" && body.error && typeof body.error.code === "string" ? body.error.code : null;
  return { status, code, headers, body, text };
}

async function fromApi(res: APIResponse): Promise<Reply> {
  return replyOf(res.status(), res.headers(), await res.text());
}

type CallOpts = { headers?: Record<string, string>; json?: unknown; body?: Buffer | string; type?: string };

/** Through Playwright's APIRequestContext (no cookie jar is involved: this context never signs in). */
async function call(method: string, path: string, o: CallOpts = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  let data: Buffer | string | undefined;
  if (o.json !== undefined) {
    data = JSON.stringify(o.json);
    headers["content-type"] ??= "application/json";
  } else if (o.body !== undefined) {
    data = o.body;
  }
  if (o.type) headers["content-type"] = o.type;
  return fromApi(await api.fetch(path, { method, headers, data, maxRedirects: 0, timeout: 60_000 }));
}

async function raw(req: RawRequest): Promise<Reply> {
  const r = await rawRequest(E2E_PORTS.app, req);
  return replyOf(r.status, r.headers, r.body.toString("utf8"));
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookie = (value: string) => ({ cookie: `iw_session=${value}` });
const sameOrigin = { origin: APP_URL };
const JSON_TYPE = "application/json";
const searchPath = (tenant: string) => `/api/v1/tenants/${tenant}/search`;
const publishPath = (tenant: string, key: string) => `/api/v1/tenants/${tenant}/documents/${key}/versions`;
const docPath = (tenant: string, key: string) => `/api/v1/tenants/${tenant}/documents/${key}`;
const b = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

/** A search as the bootstrap admin (or `token`) with a body given as exact bytes. */
const searchBytes = (s: Seed, bytes: Buffer, type = JSON_TYPE, token = BOOTSTRAP) =>
  raw({
    method: "POST",
    target: searchPath(s.ta),
    headers: [
      ["Authorization", `Bearer ${token}`],
      ["Content-Type", type],
      ["Content-Length", String(bytes.length)],
    ],
    body: bytes,
  });
const search = (s: Seed, body: unknown, token = BOOTSTRAP, tenant = s.ta) =>
  call("POST", searchPath(tenant), { headers: bearer(token), json: body });
/** A publish into ta under a new key as the bootstrap admin: if it slipped through, it would write. */
const publish = (s: Seed, body: unknown) =>
  call("POST", publishPath(s.ta, s.newKey), { headers: bearer(BOOTSTRAP), json: body });
const publishBytes = (s: Seed, bytes: Buffer, type = JSON_TYPE) =>
  raw({
    method: "POST",
    target: publishPath(s.ta, s.newKey),
    headers: [
      ["Authorization", `Bearer ${BOOTSTRAP}`],
      ["Content-Type", type],
      ["Content-Length", String(bytes.length)],
    ],
    body: bytes,
  });
const text = (content: string, extra: Record<string, unknown> = {}) => ({
  title: "Hostile",
  contentType: "text/plain",
  content,
  ...extra,
});
const getAs = (token: string, path: string) => call("GET", path, { headers: bearer(token) });
const rawGet = (token: string, target: string) =>
  raw({ method: "GET", target, headers: [["Authorization", `Bearer ${token}`]] });

function multipart(parts: { name: string; filename?: string; type?: string; data: Buffer | string }[]): {
  type: string;
  body: Buffer;
} {
  const boundary = "----hostile" + Math.random().toString(16).slice(2);
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ""}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disp}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n`,
      ),
    );
    chunks.push(typeof p.data === "string" ? Buffer.from(p.data) : p.data);
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}
const publishMultipart = (s: Seed, m: { type: string; body: Buffer }) =>
  call("POST", publishPath(s.ta, s.newKey), { headers: bearer(BOOTSTRAP), body: m.body, type: m.type });

const nestedArrays = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const cursorOf = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

const allowHas =
  (...methods: string[]) =>
  (r: Reply) => {
    const allow = (r.headers["allow"] ?? "").toUpperCase().split(/\s*,\s*/);
    const missing = methods.filter((m) => !allow.includes(m));
    return missing.length ? `Allow header "${r.headers["allow"] ?? ""}" lacks ${missing.join(", ")}` : undefined;
  };
const isJsonError = (r: Reply) =>
  (r.headers["content-type"] ?? "").includes("application/json")
    ? undefined
    : `content-type is "${r.headers["content-type"] ?? ""}", not JSON`;
const both =
  (...checks: ((r: Reply, s: Seed) => string | undefined)[]) =>
  (r: Reply, s: Seed) =>
    checks.map((c) => c(r, s)).find(Boolean);
/** Every hit is one of `allowed`, and `expected` is among them (an empty answer proves nothing). */
const hitsOnly = (allowed: (s: Seed) => string[], expected: (s: Seed) => string) => (r: Reply, s: Seed) => {
  const hits: { documentKey: string }[] = r.body?.hits ?? [];
  if (!Array.isArray(r.body?.hits)) return "no hits array";
  const keys = hits.map((h) => h.documentKey);
  const bad = keys.filter((k) => !allowed(s).includes(k));
  if (bad.length) return `hits it must not see: ${[...new Set(bad)].join(", ")}`;
  return keys.includes(expected(s)) ? undefined : `no hit from ${expected(s)}, which it may see`;
};
const emptyItems = (r: Reply) =>
  Array.isArray(r.body?.items) && r.body.items.length === 0
    ? undefined
    : `expected no items, got ${JSON.stringify(r.body?.items)?.slice(0, 200)}`;

const CASES: Case[] = [
  // ── encodings ────────────────────────────────────────────────────────────────────────────────
  {
    category: "encoding",
    name: "search body with a malformed UTF-8 sequence (C3 28)",
    send: (s) => searchBytes(s, b('{"query":"caf', [0xc3, 0x28], '"}')),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "search body with an overlong '/' (C0 AF)",
    send: (s) => searchBytes(s, b('{"query":"a', [0xc0, 0xaf], 'etc"}')),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "publish content with an overlong NUL (C0 80)",
    send: (s) => publishBytes(s, b('{"title":"t","contentType":"text/plain","content":"a', [0xc0, 0x80], 'b"}')),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "publish content with a UTF-8-encoded surrogate (ED A0 80)",
    send: (s) => publishBytes(s, b('{"title":"t","contentType":"text/plain","content":"a', [0xed, 0xa0, 0x80], 'b"}')),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "UTF-16LE body with BOM, declared charset=utf-16",
    send: (s) =>
      searchBytes(
        s,
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"query":"x"}', "utf16le")]),
        "application/json; charset=utf-16",
      ),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "UTF-16BE body with BOM",
    send: (s) =>
      searchBytes(s, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('{"query":"x"}', "utf16le").swap16()])),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "UTF-16LE body without BOM (valid bytes, NULs between) is not JSON",
    send: (s) => searchBytes(s, Buffer.from('{"query":"x"}', "utf16le")),
    expectStatus: 400,
    expectCode: "INVALID_JSON",
  },
  {
    category: "encoding",
    name: "a UTF-8 BOM is skipped and the body still validated (topK 0)",
    send: (s) => searchBytes(s, b([0xef, 0xbb, 0xbf], '{"query":"x","topK":0}')),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "two UTF-8 BOMs: the second is not JSON whitespace",
    send: (s) => searchBytes(s, b([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '{"query":"x"}')),
    expectStatus: 400,
    expectCode: "INVALID_JSON",
  },
  {
    category: "encoding",
    name: "NUL in text content",
    send: (s) => publish(s, text("before\u0000after")),
    expectStatus: 400,
    expectCode: "INVALID_CONTENT",
  },
  {
    category: "encoding",
    name: "ESC in Markdown content",
    send: (s) => publish(s, { title: "t", contentType: "text/markdown", content: "# T\n\n\u001b[31mred" }),
    expectStatus: 400,
    expectCode: "INVALID_CONTENT",
  },
  {
    category: "encoding",
    name: "DEL in HTML content",
    send: (s) => publish(s, { title: "t", contentType: "text/html", content: "<p>a\u007fb</p>" }),
    expectStatus: 400,
    expectCode: "INVALID_CONTENT",
  },
  {
    category: "encoding",
    name: "NUL in the title",
    send: (s) => publish(s, text("fine content", { title: "bad\u0000title" })),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "NUL in an ACL principal",
    send: (s) => publish(s, text("fine content", { acl: ["group:hr\u0000"] })),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "NUL in the abstract",
    send: (s) => publish(s, text("fine content", { abstract: "sum\u0000mary" })),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "lone surrogate escape (\\ud800) in content",
    send: (s) => publishBytes(s, b('{"title":"t","contentType":"text/plain","content":"a\\ud800b"}')),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "lone surrogate escape (\\udfff) in the title",
    send: (s) => publishBytes(s, b('{"title":"t\\udfff","contentType":"text/plain","content":"fine"}')),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "ESC in a search query",
    send: (s) => search(s, { query: "find \u001b[2J me" }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "NUL in a force-done reason (an audit row would hold it)",
    send: (s) =>
      call("POST", `/api/v1/tasks/${s.deadTaskB}/force-done`, {
        headers: bearer(BOOTSTRAP),
        json: { reason: "because\u0000" },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "NUL in a token name",
    send: (s) =>
      call("POST", "/api/v1/admin/tokens", {
        headers: bearer(BOOTSTRAP),
        json: { name: `${s.stamp}\u0000bot`, role: "viewer", tenants: [s.ta] },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "NUL inside a JSON key",
    send: (s) => searchBytes(s, b('{"query":"x","to\\u0000pK":5}')),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "NUL in a search principal (bootstrap may name principals)",
    send: (s) => search(s, { query: "x", principals: ["group:hr\u0000"] }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "encoding",
    name: "multipart text file with malformed UTF-8",
    send: (s) =>
      publishMultipart(
        s,
        multipart([
          { name: "file", filename: "n.txt", type: "text/plain", data: Buffer.from([0x68, 0x69, 0xff, 0xfe]) },
        ]),
      ),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "encoding",
    name: "multipart text file with NUL",
    send: (s) =>
      publishMultipart(s, multipart([{ name: "file", filename: "n.txt", type: "text/plain", data: "a\u0000b" }])),
    expectStatus: 400,
    expectCode: "INVALID_CONTENT",
  },
  {
    category: "encoding",
    name: "sign-in body with malformed UTF-8",
    send: () => {
      const bytes = b('{"token":"', [0xff, 0xfe, 0xfd], '"}');
      return raw({
        method: "POST",
        target: "/api/auth/signin",
        headers: [
          ["Content-Type", JSON_TYPE],
          ["X-Forwarded-For", "198.51.100.200"],
          ["Content-Length", String(bytes.length)],
        ],
        body: bytes,
      });
    },
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },

  // ── types ────────────────────────────────────────────────────────────────────────────────────
  {
    category: "types",
    name: "topK as a string",
    send: (s) => search(s, { query: "x", topK: "5" }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "negative topK",
    send: (s) => search(s, { query: "x", topK: -1 }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "float topK",
    send: (s) => search(s, { query: "x", topK: 2.5 }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "topK 1e400 (parses as Infinity)",
    send: (s) => searchBytes(s, b('{"query":"x","topK":1e400}')),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: 'topK "NaN"',
    send: (s) => search(s, { query: "x", topK: "NaN" }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "topK null",
    send: (s) => search(s, { query: "x", topK: null }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "query as an array",
    send: (s) => search(s, { query: ["x"] }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "query null",
    send: (s) => search(s, { query: null }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "body is an array instead of an object",
    send: (s) => search(s, [{ query: "x" }]),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "body is null",
    send: (s) => searchBytes(s, b("null")),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "body is true",
    send: (s) => searchBytes(s, b("true")),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: 'level "1"',
    send: (s) => search(s, { query: "x", level: "1" }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "principals as a string",
    send: (s) => search(s, { query: "x", principals: "group:hr" }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "publish title as an object",
    send: (s) => publish(s, text("fine", { title: { en: "t" } })),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "publish acl as a string",
    send: (s) => publish(s, text("fine", { acl: "group:hr" })),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: 'contentEncoding "utf16"',
    send: (s) => publish(s, text("fine", { contentEncoding: "utf16" })),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "base64 content that is not base64",
    send: (s) =>
      publish(s, { title: "t", contentType: "application/pdf", contentEncoding: "base64", content: "!!not*base64!!" }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: 'rollback toVersion "1" (string)',
    send: (s) =>
      call("POST", `${docPath(s.ta, s.publicDoc)}/rollback`, {
        headers: bearer(BOOTSTRAP),
        json: { toVersion: "1", reason: "hostile input" },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "rollback toVersion 1e300 (an integer to JavaScript, not to an INT column)",
    send: (s) =>
      call("POST", `${docPath(s.ta, s.publicDoc)}/rollback`, {
        headers: bearer(BOOTSTRAP),
        body: '{"toVersion":1e300,"reason":"hostile input"}',
        type: JSON_TYPE,
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "task id 1e3",
    send: () => getAs(BOOTSTRAP, "/api/v1/tasks/1e3"),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "task id -1",
    send: () => getAs(BOOTSTRAP, "/api/v1/tasks/-1"),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "task id past bigint (9223372036854775808)",
    send: () => getAs(BOOTSTRAP, "/api/v1/tasks/9223372036854775808"),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "documents limit=abc",
    send: () => getAs(BOOTSTRAP, "/api/v1/documents?limit=abc"),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: "documents limit=1e9",
    send: () => getAs(BOOTSTRAP, "/api/v1/documents?limit=1e9"),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: 'bulk retry status "dead" (lower case)',
    send: (s) =>
      call("POST", "/api/v1/tasks/retry", { headers: bearer(BOOTSTRAP), json: { status: "dead", tenant: s.tb } }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: 'token role "root"',
    send: (s) =>
      call("POST", "/api/v1/admin/tokens", {
        headers: bearer(BOOTSTRAP),
        json: { name: `${s.stamp}-root`, role: "root", tenants: [s.ta] },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "types",
    name: 'token tenants "*" as a string',
    send: (s) =>
      call("POST", "/api/v1/admin/tokens", {
        headers: bearer(BOOTSTRAP),
        json: { name: `${s.stamp}-star`, role: "viewer", tenants: "*" },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },

  // ── sizes ────────────────────────────────────────────────────────────────────────────────────
  {
    category: "sizes",
    name: "search body of 70 kB with Content-Length (limit 64 kB)",
    send: (s) => search(s, { query: "x", pad: "p".repeat(70_000) }),
    expectStatus: 413,
    expectCode: "PAYLOAD_TOO_LARGE",
  },
  {
    category: "sizes",
    name: "search body of 70 kB chunked, no Content-Length",
    send: (s) =>
      raw({
        method: "POST",
        target: searchPath(s.ta),
        headers: [
          ["Authorization", `Bearer ${BOOTSTRAP}`],
          ["Content-Type", JSON_TYPE],
        ],
        chunks: [
          '{"query":"x","pad":"' + "p".repeat(63_000),
          ...Array.from({ length: 7 }, () => "p".repeat(1000)),
          '"}',
        ],
        chunkDelayMs: 50,
      }),
    expectStatus: 413,
    expectCode: "PAYLOAD_TOO_LARGE",
  },
  {
    category: "sizes",
    name: "Content-Length claims 1 TB, body is 13 bytes: refused before reading",
    send: (s) =>
      raw({
        method: "POST",
        target: publishPath(s.ta, s.newKey),
        headers: [
          ["Authorization", `Bearer ${BOOTSTRAP}`],
          ["Content-Type", JSON_TYPE],
          ["Content-Length", "1000000000000"],
        ],
        body: '{"query":"x"}',
        timeoutMs: 15_000,
      }),
    expectStatus: 413,
    expectCode: "PAYLOAD_TOO_LARGE",
  },
  {
    // The bytes past the declared length form a second, pipelined request (a smuggling attempt):
    // the first body ends where its Content-Length says, and is answered on its own.
    category: "sizes",
    name: "Content-Length shorter than the body: the body ends at the declared length",
    send: (s) =>
      raw({
        method: "POST",
        target: searchPath(s.ta),
        headers: [
          ["Authorization", `Bearer ${BOOTSTRAP}`],
          ["Content-Type", JSON_TYPE],
          ["Content-Length", "8"],
        ],
        body: `{"query"GET /api/v1/admin/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
        keepAlive: true,
      }),
    expectStatus: 400,
    expectCode: "INVALID_JSON",
  },
  {
    category: "sizes",
    name: "a chunked body in 1-byte chunks is reassembled and validated",
    send: (s) =>
      raw({
        method: "POST",
        target: searchPath(s.ta),
        headers: [
          ["Authorization", `Bearer ${BOOTSTRAP}`],
          ["Content-Type", JSON_TYPE],
        ],
        chunks: [...'{"query":"x","topK":1000}'],
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sizes",
    name: "token-create body of 20 kB (limit 10 kB)",
    send: (s) =>
      call("POST", "/api/v1/admin/tokens", {
        headers: bearer(BOOTSTRAP),
        json: { name: "n".repeat(20_000), role: "viewer", tenants: [s.ta] },
      }),
    expectStatus: 413,
    expectCode: "PAYLOAD_TOO_LARGE",
  },
  {
    category: "sizes",
    name: "sign-in body of 20 kB",
    send: () =>
      call("POST", "/api/auth/signin", {
        headers: { "x-forwarded-for": "198.51.100.201" },
        json: { token: "t".repeat(20_000) },
      }),
    expectStatus: 413,
    expectCode: "PAYLOAD_TOO_LARGE",
  },
  {
    category: "sizes",
    name: "content of 10 MiB + 1 byte (MAX_CONTENT_BYTES)",
    send: (s) => publish(s, text("a".repeat(10 * 1024 * 1024 + 1))),
    expectStatus: 413,
    expectCode: "CONTENT_TOO_LARGE",
  },
  {
    category: "sizes",
    name: "10,000-element ACL",
    send: (s) => publish(s, text("fine", { acl: Array.from({ length: 10_000 }, (_, i) => `user:u${i}@example.test`) })),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  // 10,000 one-letter principals stay under the 64 kB search body limit, so the schema answers.
  {
    category: "sizes",
    name: "10,000 principals",
    send: (s) => search(s, { query: "x", principals: Array.from({ length: 10_000 }, () => "g") }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sizes",
    name: "tenant name of 5,000 characters",
    send: () => call("POST", searchPath("t".repeat(5000)), { headers: bearer(BOOTSTRAP), json: { query: "x" } }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sizes",
    name: "key of 129 characters",
    send: (s) => getAs(BOOTSTRAP, docPath(s.ta, "k".repeat(129))),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sizes",
    name: "a JSON key of 50,000 characters",
    send: (s) => search(s, { query: "x", ["k".repeat(50_000)]: 1 }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sizes",
    name: "query of 4,001 characters",
    send: (s) => search(s, { query: "q".repeat(4001) }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },

  // ── nesting and prototype keys ───────────────────────────────────────────────────────────────
  {
    category: "nesting",
    name: "query nested 10,000 arrays deep",
    send: (s) => searchBytes(s, b(`{"query":${nestedArrays(10_000, '"x"')}}`)),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "nesting",
    name: "extra key holding 10,000 nested objects",
    send: (s) => searchBytes(s, b(`{"query":"x","deep":${nestedObjects(10_000)}}`)),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "nesting",
    name: "whole body 10,000 arrays deep",
    send: (s) => searchBytes(s, b(nestedArrays(10_000))),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "nesting",
    name: "publish body 100,000 arrays deep",
    send: (s) =>
      publishBytes(
        s,
        b(`{"title":"t","contentType":"text/plain","content":"x","acl":${nestedArrays(100_000, '"g"')}}`),
      ),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "nesting",
    name: "__proto__ key in a search body",
    send: (s) => searchBytes(s, b('{"query":"x","__proto__":{"topK":1000}}')),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "nesting",
    name: "constructor.prototype key in a publish body",
    send: (s) =>
      publishBytes(
        s,
        b('{"title":"t","contentType":"text/plain","content":"x","constructor":{"prototype":{"isAdmin":true}}}'),
      ),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "nesting",
    name: "__proto__ asking for role admin in token create",
    send: (s) =>
      call("POST", "/api/v1/admin/tokens", {
        headers: bearer(BOOTSTRAP),
        body: `{"name":"${s.stamp}-proto","role":"viewer","tenants":["${s.ta}"],"__proto__":{"role":"admin"}}`,
        type: JSON_TYPE,
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "nesting",
    name: "__proto__ in a sign-in body",
    send: () =>
      call("POST", "/api/auth/signin", {
        headers: { "x-forwarded-for": "198.51.100.202" },
        body: '{"token":"x","__proto__":{"admin":true}}',
        type: JSON_TYPE,
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },

  // ── path tricks ──────────────────────────────────────────────────────────────────────────────
  // Encoded dot segments are resolved like literal ones before routing, so they name another
  // path (answered as that path is), never a tenant called "..".
  {
    category: "paths",
    name: "tenant %2e%2e (encoded dot segment) resolves to a path with no route",
    send: (s) => rawGet(s.viewerA, `/api/v1/tenants/%2e%2e/documents/${s.bobDoc}`),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
    check: isJsonError,
  },
  {
    category: "paths",
    name: "%2e%2e climbing from ta into tb is still tb's tenant check",
    send: (s) => rawGet(s.viewerA, `/api/v1/tenants/${s.ta}/%2e%2E/${s.tb}/documents/${s.bobDoc}`),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "paths",
    name: "literal ../ climbing from ta into tb",
    send: (s) => rawGet(s.viewerA, `/api/v1/tenants/${s.ta}/../${s.tb}/documents/${s.bobDoc}`),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "paths",
    name: "key ..%2f..%2f (encoded slashes) towards tb",
    send: (s) => rawGet(s.viewerA, `/api/v1/tenants/${s.ta}/documents/..%2f..%2f${s.tb}%2fdocuments%2f${s.bobDoc}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "paths",
    name: "double-encoded slash %252f in the key",
    send: (s) => rawGet(BOOTSTRAP, `/api/v1/tenants/${s.ta}/documents/a%252fb`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "paths",
    name: "encoded NUL %00 in the key",
    send: (s) => rawGet(BOOTSTRAP, `/api/v1/tenants/${s.ta}/documents/${s.publicDoc}%00`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "paths",
    name: "tenant with a Cyrillic lookalike letter",
    send: (s) =>
      rawGet(BOOTSTRAP, `/api/v1/tenants/${encodeURIComponent(s.ta.replace("a", "\u0430"))}/documents/${s.publicDoc}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "paths",
    name: "key in fullwidth letters",
    send: (s) => rawGet(BOOTSTRAP, `/api/v1/tenants/${s.ta}/documents/${encodeURIComponent("\uff48\uff52")}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "paths",
    name: "tenant in upper case",
    send: (s) => rawGet(BOOTSTRAP, `/api/v1/tenants/${s.ta.toUpperCase()}/documents/${s.publicDoc}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "paths",
    name: "publish under a key with a trailing slash is redirected, not run",
    send: (s) => call("POST", `${publishPath(s.ta, s.newKey)}/`, { headers: bearer(BOOTSTRAP), json: text("fine") }),
    expectStatus: 308,
    expectCode: null,
    check: (r, s) =>
      r.headers["location"] === publishPath(s.ta, s.newKey)
        ? undefined
        : `Location is "${r.headers["location"] ?? ""}"`,
  },

  // ── content types ────────────────────────────────────────────────────────────────────────────
  {
    category: "content-type",
    name: "JSON sent as text/plain",
    send: (s) =>
      call("POST", searchPath(s.ta), { headers: bearer(BOOTSTRAP), body: '{"query":"x"}', type: "text/plain" }),
    expectStatus: 415,
    expectCode: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    category: "content-type",
    name: "JSON with no Content-Type at all",
    send: (s) =>
      raw({
        method: "POST",
        target: searchPath(s.ta),
        headers: [
          ["Authorization", `Bearer ${BOOTSTRAP}`],
          ["Content-Length", "13"],
        ],
        body: '{"query":"x"}',
      }),
    expectStatus: 415,
    expectCode: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    category: "content-type",
    name: "a form (x-www-form-urlencoded) to search",
    send: (s) =>
      call("POST", searchPath(s.ta), {
        headers: bearer(BOOTSTRAP),
        body: "query=x",
        type: "application/x-www-form-urlencoded",
      }),
    expectStatus: 415,
    expectCode: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    category: "content-type",
    name: "multipart to search",
    send: (s) => {
      const m = multipart([{ name: "query", data: "x" }]);
      return call("POST", searchPath(s.ta), { headers: bearer(BOOTSTRAP), body: m.body, type: m.type });
    },
    expectStatus: 415,
    expectCode: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    category: "content-type",
    name: "application/jsonp",
    send: (s) =>
      call("POST", searchPath(s.ta), { headers: bearer(BOOTSTRAP), body: '{"query":"x"}', type: "application/jsonp" }),
    expectStatus: 415,
    expectCode: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    category: "content-type",
    name: "charset=latin1 declared, Latin-1 bytes sent",
    send: (s) => searchBytes(s, b('{"query":"caf', [0xe9], '"}'), "application/json; charset=latin1"),
    expectStatus: 400,
    expectCode: "INVALID_ENCODING",
  },
  {
    category: "content-type",
    name: "APPLICATION/JSON in upper case is JSON (and validated)",
    send: (s) => searchBytes(s, b('{"query":""}'), "APPLICATION/JSON; Charset=UTF-8"),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "content-type",
    name: "publish as text/plain",
    send: (s) =>
      call("POST", publishPath(s.ta, s.newKey), {
        headers: bearer(BOOTSTRAP),
        body: JSON.stringify(text("fine")),
        type: "text/plain",
      }),
    expectStatus: 415,
    expectCode: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    category: "content-type",
    name: "multipart with a broken boundary",
    send: (s) =>
      call("POST", publishPath(s.ta, s.newKey), {
        headers: bearer(BOOTSTRAP),
        body: '--nope\r\nContent-Disposition: form-data; name="file"\r\n\r\nx',
        type: "multipart/form-data; boundary=other",
      }),
    expectStatus: 400,
    expectCode: "INVALID_MULTIPART",
  },
  {
    category: "content-type",
    name: "multipart without a file field",
    send: (s) => publishMultipart(s, multipart([{ name: "title", data: "t" }])),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "content-type",
    name: "multipart with an unknown field",
    send: (s) =>
      publishMultipart(
        s,
        multipart([
          { name: "file", filename: "a.txt", type: "text/plain", data: "fine" },
          { name: "role", data: "admin" },
        ]),
      ),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "content-type",
    name: "document type application/x-msdownload",
    send: (s) =>
      publish(s, {
        title: "t",
        contentType: "application/x-msdownload",
        contentEncoding: "base64",
        content: "TVqQAAMAAAAEAAAA",
      }),
    expectStatus: 415,
    expectCode: "UNSUPPORTED_DOCUMENT",
  },

  // ── methods and unknown paths ────────────────────────────────────────────────────────────────
  {
    category: "methods",
    name: "PUT on a document",
    send: (s) => call("PUT", docPath(s.ta, s.publicDoc), { headers: bearer(BOOTSTRAP), json: text("x") }),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("GET", "DELETE"), isJsonError),
  },
  {
    category: "methods",
    name: "PATCH on search",
    send: (s) => call("PATCH", searchPath(s.ta), { headers: bearer(BOOTSTRAP), json: { query: "x" } }),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("POST"), isJsonError),
  },
  {
    category: "methods",
    name: "GET on search",
    send: (s) => getAs(BOOTSTRAP, searchPath(s.ta)),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("POST"), isJsonError),
  },
  {
    category: "methods",
    name: "DELETE on the task list",
    send: () => call("DELETE", "/api/v1/tasks", { headers: bearer(BOOTSTRAP) }),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("GET"), isJsonError),
  },
  {
    category: "methods",
    name: "TRACE on health",
    send: () => raw({ method: "TRACE", target: "/api/health" }),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("GET"), isJsonError),
  },
  {
    category: "methods",
    name: "PROPFIND (WebDAV) on a document",
    send: (s) =>
      raw({
        method: "PROPFIND",
        target: docPath(s.ta, s.publicDoc),
        headers: [["Authorization", `Bearer ${BOOTSTRAP}`]],
      }),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("GET", "DELETE"), isJsonError),
  },
  {
    category: "methods",
    name: "POST on a token id",
    send: () =>
      call("POST", "/api/v1/admin/tokens/00000000-0000-4000-8000-000000000000", {
        headers: bearer(BOOTSTRAP),
        json: {},
      }),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("DELETE"), isJsonError),
  },
  {
    category: "methods",
    name: "DELETE on versions (publish only)",
    send: (s) => call("DELETE", publishPath(s.ta, s.publicDoc), { headers: bearer(BOOTSTRAP) }),
    expectStatus: 405,
    expectCode: "METHOD_NOT_ALLOWED",
    check: both(allowHas("POST"), isJsonError),
  },
  {
    category: "methods",
    name: "unknown /api/v1 path",
    send: () => getAs(BOOTSTRAP, "/api/v1/nope"),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
    check: isJsonError,
  },
  {
    category: "methods",
    name: "unknown /api path, POST",
    send: () => call("POST", "/api/v2/tenants/x/search", { headers: bearer(BOOTSTRAP), json: { query: "x" } }),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
    check: isJsonError,
  },
  {
    category: "methods",
    name: "a tenant has no resource of its own",
    send: (s) => getAs(BOOTSTRAP, `/api/v1/tenants/${s.ta}`),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
    check: isJsonError,
  },

  // ── another tenant's ids ─────────────────────────────────────────────────────────────────────
  {
    category: "other-tenant",
    name: "ta viewer reads tb's document",
    send: (s) => getAs(s.viewerA, docPath(s.tb, s.bobDoc)),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "other-tenant",
    name: "ta viewer reads a tb key that does not exist (same answer)",
    send: (s) => getAs(s.viewerA, docPath(s.tb, `${s.bobDoc}-nope`)),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "other-tenant",
    name: "ta operator rolls back tb's document",
    send: (s) =>
      call("POST", `${docPath(s.tb, s.bobDoc)}/rollback`, {
        headers: bearer(s.operatorA),
        json: { toVersion: 1, reason: "hostile input" },
      }),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "other-tenant",
    name: "ta operator unpins tb's document",
    send: (s) => call("POST", `${docPath(s.tb, s.bobDoc)}/unpin`, { headers: bearer(s.operatorA) }),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "other-tenant",
    name: "ta operator deletes tb's document",
    send: (s) => call("DELETE", docPath(s.tb, s.bobDoc), { headers: bearer(s.operatorA) }),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "other-tenant",
    name: "ta operator reads tb's DEAD task",
    send: (s) => getAs(s.operatorA, `/api/v1/tasks/${s.deadTaskB}`),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
  },
  {
    category: "other-tenant",
    name: "ta operator reads a task id that does not exist (same answer)",
    send: (s) => getAs(s.operatorA, "/api/v1/tasks/9223372036854775807"),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
  },
  {
    category: "other-tenant",
    name: "ta operator retries tb's DEAD task",
    send: (s) =>
      call("POST", `/api/v1/tasks/${s.deadTaskB}/retry`, {
        headers: bearer(s.operatorA),
        json: { reason: "hostile input" },
      }),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
  },
  {
    category: "other-tenant",
    name: "ta operator force-closes tb's DEAD task",
    send: (s) =>
      call("POST", `/api/v1/tasks/${s.deadTaskB}/force-done`, {
        headers: bearer(s.operatorA),
        json: { reason: "hostile input" },
      }),
    expectStatus: 404,
    expectCode: "NOT_FOUND",
  },
  {
    category: "other-tenant",
    name: "ta operator bulk-retries DEAD tasks of tb: refused (its audit row would land in tb's log)",
    send: (s) =>
      call("POST", "/api/v1/tasks/retry", {
        headers: bearer(s.operatorA),
        json: { status: "DEAD", tenant: s.tb, reason: "hostile input" },
      }),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "other-tenant",
    name: "ta operator searches tb",
    send: (s) => search(s, { query: "notes" }, s.operatorA, s.tb),
    expectStatus: 403,
    expectCode: "FORBIDDEN",
  },
  {
    category: "other-tenant",
    name: "ta operator lists tb's documents: none",
    send: (s) => getAs(s.operatorA, `/api/v1/documents?tenant=${s.tb}`),
    expectStatus: 200,
    expectCode: null,
    check: emptyItems,
  },
  {
    category: "other-tenant",
    name: "ta operator lists tb's tasks: none",
    send: (s) => getAs(s.operatorA, `/api/v1/tasks?tenant=${s.tb}`),
    expectStatus: 200,
    expectCode: null,
    check: emptyItems,
  },
  {
    category: "other-tenant",
    name: "tenant-limited viewer asks for the worker fleet",
    send: (s) => getAs(s.viewerA, "/api/v1/workers"),
    expectStatus: 403,
    expectCode: "FLEET_SCOPE_REQUIRED",
  },
  {
    category: "other-tenant",
    name: "tenant-limited viewer asks for /api/metrics",
    send: (s) => getAs(s.viewerA, "/api/metrics"),
    expectStatus: 403,
    expectCode: "FLEET_SCOPE_REQUIRED",
  },

  // ── SQL-looking input ────────────────────────────────────────────────────────────────────────
  {
    category: "sql",
    name: "documents ?tenant=' OR 1=1 --",
    send: () => getAs(BOOTSTRAP, `/api/v1/documents?tenant=${encodeURIComponent("' OR 1=1 --")}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "documents ?q=' OR 1=1 -- matches nothing",
    send: () => getAs(BOOTSTRAP, `/api/v1/documents?q=${encodeURIComponent("' OR 1=1 --")}`),
    expectStatus: 200,
    expectCode: null,
    check: emptyItems,
  },
  {
    category: "sql",
    name: "documents ?q=%00 (NUL in a LIKE pattern)",
    send: () => getAs(BOOTSTRAP, "/api/v1/documents?q=a%00b"),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "documents ?cursor=' OR 1=1 --",
    send: () => getAs(BOOTSTRAP, `/api/v1/documents?cursor=${encodeURIComponent("' OR 1=1 --")}`),
    expectStatus: 400,
    expectCode: "INVALID_CURSOR",
  },
  {
    category: "sql",
    name: 'documents cursor decoding to [date, "\' OR 1=1 --"]',
    send: () => getAs(BOOTSTRAP, `/api/v1/documents?cursor=${cursorOf(["2020-01-01T00:00:00.000Z", "' OR 1=1 --"])}`),
    expectStatus: 400,
    expectCode: "INVALID_CURSOR",
  },
  {
    category: "sql",
    name: 'documents cursor decoding to ["1", uuid] (a JS date, not a SQL one)',
    send: () => getAs(BOOTSTRAP, `/api/v1/documents?cursor=${cursorOf(["1", "00000000-0000-4000-8000-000000000000"])}`),
    expectStatus: 400,
    expectCode: "INVALID_CURSOR",
  },
  {
    category: "sql",
    name: "tasks ?cursor=1 OR 1=1",
    send: () => getAs(BOOTSTRAP, `/api/v1/tasks?cursor=${encodeURIComponent("1 OR 1=1")}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "tasks ?status=DEAD' OR '1'='1",
    send: () => getAs(BOOTSTRAP, `/api/v1/tasks?status=${encodeURIComponent("DEAD' OR '1'='1")}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "audit ?cursor=; DROP TABLE audit_log",
    send: () => getAs(BOOTSTRAP, `/api/v1/audit?cursor=${encodeURIComponent("1; DROP TABLE audit_log; --")}`),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "key '; DROP TABLE documents; --",
    send: (s) => getAs(BOOTSTRAP, docPath(s.ta, encodeURIComponent("'; DROP TABLE documents; --"))),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "tenant x' OR '1'='1 in a search path",
    send: () =>
      call("POST", searchPath(encodeURIComponent("x' OR '1'='1")), {
        headers: bearer(BOOTSTRAP),
        json: { query: "x" },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "rename to a key with ; DROP TABLE",
    send: (s) =>
      call("POST", `${docPath(s.ta, s.publicDoc)}/rename`, {
        headers: bearer(BOOTSTRAP),
        json: { newKey: "a'; DROP TABLE documents; --" },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "sign-in email ' OR 1=1 --",
    send: () =>
      call("POST", "/api/auth/signin", {
        headers: { "x-forwarded-for": "198.51.100.203" },
        json: { email: "' OR 1=1 --@example.test", password: "x" },
      }),
    expectStatus: 400,
    expectCode: "VALIDATION_FAILED",
  },
  {
    category: "sql",
    name: "search query '; DROP TABLE chunks; -- returns ta's public hits only",
    send: (s) => search(s, { query: "'; DROP TABLE chunks; -- quarterly lighthouse notes" }),
    expectStatus: 200,
    expectCode: null,
    check: hitsOnly(
      (s) => [s.publicDoc, s.hrDoc],
      (s) => s.publicDoc,
    ),
  },

  // ── header abuse ─────────────────────────────────────────────────────────────────────────────
  {
    category: "headers",
    name: "Authorization: Basic",
    send: () => call("GET", "/api/v1/tenants", { headers: { authorization: "Basic YWRtaW46YWRtaW4=" } }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "Authorization: Bearer with no token",
    send: () => call("GET", "/api/v1/tenants", { headers: { authorization: "Bearer" } }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "Authorization: Bearer with two tokens",
    send: () => call("GET", "/api/v1/tenants", { headers: { authorization: `Bearer ${BOOTSTRAP} ${BOOTSTRAP}` } }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "Authorization with 8-bit bytes",
    send: () =>
      raw({
        method: "GET",
        target: "/api/v1/tenants",
        headers: [
          [
            "Authorization",
            Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xff, 0xfe, 0x41]).toString("latin1"),
          ],
        ],
      }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "a 10 kB bearer token",
    send: () => call("GET", "/api/v1/tenants", { headers: bearer("x".repeat(10_000)) }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "two Authorization headers (viewer, then bootstrap) on an admin route",
    send: (s) =>
      raw({
        method: "GET",
        target: "/api/v1/admin/tokens",
        headers: [
          ["Authorization", `Bearer ${s.viewerA}`],
          ["Authorization", `Bearer ${BOOTSTRAP}`],
        ],
      }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "two Authorization headers (bootstrap, then viewer) on an admin route",
    send: (s) =>
      raw({
        method: "GET",
        target: "/api/v1/admin/tokens",
        headers: [
          ["Authorization", `Bearer ${BOOTSTRAP}`],
          ["Authorization", `Bearer ${s.viewerA}`],
        ],
      }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "an 8 kB session cookie",
    send: () => call("GET", "/api/v1/tenants", { headers: cookie("A".repeat(8_000)) }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "a session cookie with a malformed %-escape",
    send: () =>
      raw({ method: "GET", target: "/api/v1/tenants", headers: [["Cookie", "iw_session=%E0%A4%A; other=1"]] }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "a real session cookie %-escaped differently is not a session",
    send: (s) =>
      raw({
        method: "GET",
        target: "/api/v1/tenants",
        headers: [["Cookie", `iw_session=${encodeURIComponent(s.viewerCookie + "\u0000")}`]],
      }),
    expectStatus: 401,
    expectCode: "UNAUTHORIZED",
  },
  {
    category: "headers",
    name: "cookie-authenticated retry from a foreign Origin",
    send: (s) =>
      call("POST", `/api/v1/tasks/${s.deadTaskB}/retry`, {
        headers: { ...cookie(s.operatorCookie), origin: "https://evil.example" },
      }),
    expectStatus: 403,
    expectCode: "ORIGIN_MISMATCH",
  },
  {
    category: "headers",
    name: "cookie-authenticated publish without an Origin",
    send: (s) => call("POST", publishPath(s.ta, s.newKey), { headers: cookie(s.operatorCookie), json: text("fine") }),
    expectStatus: 403,
    expectCode: "ORIGIN_MISMATCH",
  },
  {
    category: "headers",
    name: 'cookie-authenticated rollback with Origin "null"',
    send: (s) =>
      call("POST", `${docPath(s.ta, s.publicDoc)}/rollback`, {
        headers: { ...cookie(s.operatorCookie), origin: "null" },
        json: { toVersion: 1, reason: "hostile input" },
      }),
    expectStatus: 403,
    expectCode: "ORIGIN_MISMATCH",
  },
  {
    category: "headers",
    name: "cookie-authenticated delete from our host on another port",
    send: (s) =>
      call("DELETE", docPath(s.ta, s.publicDoc), {
        headers: { ...cookie(s.operatorCookie), origin: `http://127.0.0.1:${E2E_PORTS.app + 1}` },
      }),
    expectStatus: 403,
    expectCode: "ORIGIN_MISMATCH",
  },
  {
    category: "headers",
    name: "sign-in from a foreign Origin",
    send: () =>
      call("POST", "/api/auth/signin", {
        headers: { origin: "https://evil.example", "x-forwarded-for": "198.51.100.204" },
        json: { token: BOOTSTRAP },
      }),
    expectStatus: 403,
    expectCode: "ORIGIN_MISMATCH",
  },
  {
    category: "headers",
    name: "X-Forwarded-For rotated on every failed sign-in does not escape the throttle",
    send: async (s) => {
      // An account nobody uses, so no other spec's sign-in is slowed down. The first five failures
      // are free; from then on each failure makes the next attempt wait (1 s, 2 s, …), so one of
      // the next few attempts, sent at once, must be refused — whatever address it claims to be.
      const email = `${s.stamp}-ghost@example.test`;
      let last: Reply | null = null;
      for (let i = 1; i <= 9; i++) {
        last = await call("POST", "/api/auth/signin", {
          headers: { "x-forwarded-for": `203.0.113.${i}, 10.0.0.${i}` },
          json: { email, password: `wrong-password-${i}` },
        });
        if (i <= 5 && last.status !== 401) return { ...last, text: `attempt ${i} of the free five: ${last.text}` };
        if (last.status !== 401) return last;
      }
      return last!;
    },
    expectStatus: 429,
    expectCode: "TOO_MANY_ATTEMPTS",
    check: (r) =>
      /^\d+$/.test(r.headers["retry-after"] ?? "") ? undefined : `Retry-After is "${r.headers["retry-after"] ?? ""}"`,
  },

  // ── principals widening ──────────────────────────────────────────────────────────────────────
  {
    category: "principals",
    name: "viewer token names group:hr",
    send: (s) => search(s, { query: "handbook", principals: ["group:hr"] }, s.viewerA),
    expectStatus: 403,
    expectCode: "PRINCIPALS_NOT_ALLOWED",
  },
  {
    category: "principals",
    name: "operator application token without search:principals names group:hr",
    send: (s) => search(s, { query: "handbook", principals: ["group:hr"] }, s.operatorA),
    expectStatus: 403,
    expectCode: "PRINCIPALS_NOT_ALLOWED",
  },
  {
    category: "principals",
    name: 'viewer token names "*"',
    send: (s) => search(s, { query: "handbook", principals: ["*"] }, s.viewerA),
    expectStatus: 403,
    expectCode: "PRINCIPALS_NOT_ALLOWED",
  },
  {
    category: "principals",
    name: "viewer session (cookie, same Origin) names user:bob",
    send: (s) =>
      call("POST", searchPath(s.ta), {
        headers: { ...cookie(s.viewerCookie), ...sameOrigin },
        json: { query: "notes", principals: ["user:bob@example.test"] },
      }),
    expectStatus: 403,
    expectCode: "PRINCIPALS_NOT_ALLOWED",
  },
  {
    category: "principals",
    name: "viewer token without principals sees no ACL-protected chunk",
    send: (s) => search(s, { query: "handbook salary review notes", topK: 50 }, s.viewerA),
    expectStatus: 200,
    expectCode: null,
    check: hitsOnly(
      (s) => [s.publicDoc],
      (s) => s.publicDoc,
    ),
  },
  {
    category: "principals",
    name: "viewer token with principals [] (narrowing) sees no ACL-protected chunk",
    send: (s) => search(s, { query: "handbook salary review notes", topK: 50, principals: [] }, s.viewerA),
    expectStatus: 200,
    expectCode: null,
    check: hitsOnly(
      (s) => [s.publicDoc],
      (s) => s.publicDoc,
    ),
  },
];

// ── seeding (before the tested window) ─────────────────────────────────────────────────────────

async function seedPublish(tenant: string, key: string, body: Record<string, unknown>): Promise<void> {
  const r = await call("POST", publishPath(tenant, key), { headers: bearer(BOOTSTRAP), json: body });
  expect(r.status, r.text).toBe(202);
}

async function waitForDocState(tenant: string, key: string, state: string): Promise<void> {
  await expect
    .poll(async () => (await getAs(BOOTSTRAP, docPath(tenant, key))).body?.state, {
      timeout: 120_000,
      intervals: [250, 500, 1000],
    })
    .toBe(state);
}

async function mintToken(name: string, role: string, tenants: string[]): Promise<string> {
  const r = await call("POST", "/api/v1/admin/tokens", { headers: bearer(BOOTSTRAP), json: { name, role, tenants } });
  expect(r.status, r.text).toBe(201);
  return r.body.token as string;
}

/** Signs in over a bare socket, so no client keeps the cookie and sends it where it is not meant. */
async function sessionFor(token: string): Promise<string> {
  const body = JSON.stringify({ token });
  const r = await rawRequest(E2E_PORTS.app, {
    method: "POST",
    target: "/api/auth/signin",
    headers: [
      ["Content-Type", JSON_TYPE],
      ["Content-Length", String(Buffer.byteLength(body))],
    ],
    body,
  });
  expect(r.status, r.body.toString()).toBe(200);
  const m = /iw_session=([^;]+)/.exec(r.headers["set-cookie"] ?? "");
  expect(m, "sign-in sets iw_session").not.toBeNull();
  return m![1];
}

async function seed(): Promise<Seed> {
  const stamp = uniqueKey("hx").slice(0, 40);
  const s: Seed = {
    stamp,
    ta: `${stamp}-a`,
    tb: `${stamp}-b`,
    hrDoc: "hr-handbook",
    publicDoc: "public-notes",
    bobDoc: "bob-notes",
    brokenDoc: "broken-scan",
    deadTaskB: "",
    newKey: "never-written",
    viewerA: "",
    operatorA: "",
    viewerCookie: "",
    operatorCookie: "",
  };
  await seedPublish(s.ta, s.hrDoc, {
    title: "HR handbook",
    contentType: "text/markdown",
    content: "# HR handbook\n\nSalary review notes: bands move each spring.\n",
    acl: ["group:hr"],
  });
  await seedPublish(s.ta, s.publicDoc, {
    title: "Public notes",
    contentType: "text/markdown",
    content: "# Public notes\n\nQuarterly lighthouse notes and the handbook index.\n",
  });
  await seedPublish(s.tb, s.bobDoc, {
    title: "Bob's notes",
    contentType: "text/markdown",
    content: "# Bob's notes\n\nPrivate notes of Bob.\n",
    acl: ["user:bob@example.test"],
  });
  await seedPublish(s.tb, s.brokenDoc, {
    title: "Broken scan",
    contentType: "application/pdf",
    contentEncoding: "base64",
    content: NOT_A_PDF,
  });
  await waitForDocState(s.ta, s.hrDoc, "SEARCHABLE");
  await waitForDocState(s.ta, s.publicDoc, "SEARCHABLE");
  await waitForDocState(s.tb, s.bobDoc, "SEARCHABLE");
  await waitForDocState(s.tb, s.brokenDoc, "FAILED");
  const dead = await getAs(BOOTSTRAP, `/api/v1/tasks?tenant=${s.tb}&status=DEAD`);
  expect(dead.status, dead.text).toBe(200);
  s.deadTaskB = String(dead.body.items[0]?.taskId ?? "");
  expect(s.deadTaskB).toMatch(/^\d+$/);
  s.viewerA = await mintToken(`${stamp}-viewer`, "viewer", [s.ta]);
  s.operatorA = await mintToken(`${stamp}-operator`, "operator", [s.ta]);
  s.viewerCookie = await sessionFor(s.viewerA);
  s.operatorCookie = await sessionFor(s.operatorA);
  return s;
}

/** The indexer may still be settling what was just seeded; the window starts once nothing moves. */
async function quietSnapshot(db: pg.Client, tenants: string[]): Promise<Snapshot> {
  let prev = await contentSnapshot(db, tenants);
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const next = await contentSnapshot(db, tenants);
    if (snapshotDiff(prev, next).length === 0) return next;
    prev = next;
  }
  throw new Error("the seeded tenants never settled");
}

// ── the run ────────────────────────────────────────────────────────────────────────────────────

test.describe.serial("hostile input", () => {
  let s: Seed;
  let db: pg.Client;

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    api = watchRequests(await playwrightRequest.newContext({ baseURL: APP_URL }));
    db = connectAppDb(E2E_PORTS.db);
    await db.connect();
    s = await seed();
  });

  test.afterAll(async () => {
    await db?.end();
    await api?.dispose();
  });

  test(`${CASES.length} hostile requests: each refused with its status and code, the content tables unchanged`, async () => {
    test.setTimeout(600_000);
    const tenants = [s.ta, s.tb];
    const before = await quietSnapshot(db, tenants);
    let last = before;
    const results: { c: Case; ok: boolean; got: string; wrote: string[] }[] = [];

    for (const c of CASES) {
      let got = "";
      let problem: string | undefined;
      try {
        const r = await c.send(s);
        got = `${r.status} ${r.code ?? "-"}`;
        if (r.status !== c.expectStatus || r.code !== c.expectCode)
          problem = `expected ${c.expectStatus} ${c.expectCode ?? "-"}, got ${got}: ${r.text.slice(0, 160).replace(/\s+/g, " ")}`;
        else problem = c.check?.(r, s);
      } catch (err) {
        got = "no answer";
        problem = `request failed: ${(err as Error).message}`;
      }
      // Which case wrote, if any: the final comparison below says whether anything did.
      const now = await contentSnapshot(db, tenants);
      const wrote = snapshotDiff(last, now);
      last = now;
      if (wrote.length) problem = [problem, `WROTE: ${wrote.join("; ")}`].filter(Boolean).join(" — ");
      results.push({ c, ok: !problem, got: problem ?? got, wrote });
    }

    const after = await contentSnapshot(db, tenants);
    const changed = snapshotDiff(before, after);

    const byCategory = new Map<string, { n: number; failed: number }>();
    for (const r of results) {
      const e = byCategory.get(r.c.category) ?? { n: 0, failed: 0 };
      e.n++;
      if (!r.ok) e.failed++;
      byCategory.set(r.c.category, e);
    }
    const failed = results.filter((r) => !r.ok);
    const report = [
      `hostile input: ${results.length} cases, ${results.length - failed.length} passed, ${failed.length} failed`,
      ...[...byCategory].map(
        ([k, v]) => `  ${k.padEnd(13)} ${String(v.n).padStart(3)} cases${v.failed ? `, ${v.failed} failed` : ""}`,
      ),
      ...results.map((r) => `${r.ok ? "PASS" : "FAIL"} [${r.c.category}] ${r.c.name} — ${r.got}`),
      changed.length
        ? `content tables CHANGED over the window: ${changed.join("; ")}`
        : `content tables byte-identical over the window (${Object.entries(after)
            .map(([t, v]) => `${t} ${v.rows}`)
            .join(", ")})`,
    ].join("\n");
    console.log(report);
    await test.info().attach("hostile-input-report.txt", { body: report, contentType: "text/plain" });

    // The control: one real publish into ta must show in the fingerprint, or the comparison above
    // would prove nothing (wrong scope, wrong database).
    const control = await call("POST", publishPath(s.ta, s.publicDoc), {
      headers: bearer(BOOTSTRAP),
      json: { title: "Public notes", contentType: "text/markdown", content: "# Public notes\n\nA second version.\n" },
    });
    expect(control.status, control.text).toBe(202);
    expect(
      snapshotDiff(after, await contentSnapshot(db, tenants)),
      "a real publish changes the fingerprint",
    ).not.toEqual([]);

    expect.soft(changed, "content tables before and after the hostile cases").toEqual([]);
    expect(failed.map((r) => `[${r.c.category}] ${r.c.name} — ${r.got}`)).toEqual([]);
  });

  // A hostile file is accepted (its bytes are only read by a parse process) and ends at its first
  // attempt, saying which limit it broke: the running worker survives it.
  test("a DOCX inflating to 1 GiB behind a declared 1 KB: DEAD PARSE_LIMIT_EXCEEDED at attempt 1, the document page names the limit", async ({
    signedIn: page,
  }) => {
    test.setTimeout(120_000);
    const key = uniqueKey("docx-bomb");
    const content = Buffer.from(await docxBomb()).toString("base64");
    await seedPublish(s.ta, key, {
      title: "Inflates to 1 GiB",
      contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      contentEncoding: "base64",
      content,
    });
    await waitForDocState(s.ta, key, "FAILED");
    const tasks = await db.query(
      `SELECT t.status, t.attempts, t.error_code FROM index_tasks t JOIN documents d ON d.id = t.document_id WHERE d.tenant_id = $1 AND d.key = $2`,
      [s.ta, key],
    );
    expect(tasks.rows).toEqual([{ status: "DEAD", attempts: 1, error_code: "PARSE_LIMIT_EXCEEDED" }]);
    await page.goto(`/documents/${s.ta}/${key}`);
    await expect(page.getByTestId("last-error")).toContainText("PARSE_LIMIT_EXCEEDED");
    await expect(page.getByTestId("parse-limit-hint")).toContainText("over the inflated size parse limit");
    // The same worker still indexes: another document of the tenant becomes searchable.
    const next = uniqueKey("after-bomb");
    await seedPublish(s.ta, next, {
      title: "After",
      contentType: "text/markdown",
      content: "# After\n\nStill indexing.\n",
    });
    await waitForDocState(s.ta, next, "SEARCHABLE");
  });
});
