import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { OpenAPIBackend, type Document as BackendDocument } from "openapi-backend";
import type { APIRequestContext, APIResponse, Request as PwRequest, Response as PwResponse } from "@playwright/test";
import { E2E_PORTS } from "../services/settings";

// The e2e suite's own API traffic checked against the OpenAPI document the app serves, by a
// validator we did not write (openapi-backend, Ajv 2020 with formats): every answer the browser,
// the typed client and raw requests get from /api/ must be an operation's, with a status that
// operation lists, a content type it lists, and a body its schema accepts. The contract test
// (test/api/openapi-contract.test.ts) calls each operation once; this sees what the journeys
// really send, error answers and hostile requests included.

/** One answer as a spec saw it. `body` is the raw text, or null when the transport kept none. */
export type Exchange = {
  method: string;
  url: string;
  status: number;
  contentType: string;
  body: string | null;
  /** The answer's headers (lower-case names); the ones checked are allow and location. */
  headers?: Record<string, string>;
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

// The API's error shape, for answers no operation gives: an unknown path (404 NOT_FOUND, the
// catch-all route) or a method the path does not serve (405 METHOD_NOT_ALLOWED, with Allow).
const ERROR_BODY = (code: string) => ({
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      additionalProperties: false,
      properties: { code: { const: code }, message: { type: "string" }, details: { type: "object" } },
    },
  },
});

type MediaSchemas = Record<string, { schema?: object }>;
type Doc = {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: MediaSchemas }> }>>;
  components: unknown;
};

export type ContractChecker = { check(x: Exchange): string[]; checked(): Map<string, number> };

/**
 * openapi-backend over a served document, with OpenAPI 3.1's JSON Schema 2020-12 and formats
 * (date-time, uuid), which are part of the contract. Its own document check is OpenAPI 3.0's,
 * which a 3.1 document fails on every `type: [..., "null"]`, so it is skipped (`quick`); the 3.1
 * check is the contract test's.
 */
export async function openApiBackend(doc: object): Promise<OpenAPIBackend> {
  const backend = new OpenAPIBackend({
    definition: structuredClone(doc) as unknown as BackendDocument,
    quick: true,
    customizeAjv: (_ajv, opts) => {
      const a = new Ajv2020({ ...opts, strict: false, allErrors: true });
      addFormats(a);
      return a as unknown as typeof _ajv;
    },
  });
  await backend.init();
  return backend;
}

/** A checker over one served document (the JSON of GET /api/openapi.json). */
export async function contractChecker(doc: Doc): Promise<ContractChecker> {
  const backend = await openApiBackend(doc);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const textSchemas = new Map<string, ValidateFunction>();
  const counts = new Map<string, number>();

  /** An answer no operation gives must be the API's 404 or 405, in its error shape, with a true Allow. */
  function outsideOperations(x: Exchange, url: URL, where: string): string[] {
    const served = METHODS.filter((m) => backend.matchOperation({ method: m, path: url.pathname, headers: {} }));
    const expected = served.length > 0 ? 405 : 404;
    counts.set(`(no operation) ${expected}`, (counts.get(`(no operation) ${expected}`) ?? 0) + 1);
    if (x.status !== expected)
      return [
        `${where}: no operation serves it, so ${expected} was due (methods served here: ${served.join(", ") || "none"})`,
      ];
    const problems: string[] = [];
    if (!x.contentType.startsWith("application/json")) problems.push(`${where}: content type "${x.contentType}"`);
    if (x.body !== null) {
      const key = `error ${expected}`;
      let v = textSchemas.get(key);
      if (!v)
        textSchemas.set(key, (v = ajv.compile(ERROR_BODY(expected === 405 ? "METHOD_NOT_ALLOWED" : "NOT_FOUND"))));
      let body: unknown;
      try {
        body = JSON.parse(x.body);
      } catch {
        return [...problems, `${where}: not JSON: ${x.body.slice(0, 120)}`];
      }
      if (!v(body)) problems.push(`${where}: ${JSON.stringify(v.errors)}`);
    }
    if (expected === 405 && x.headers) {
      const allow = (x.headers.allow ?? "").split(",").map((m) => m.trim().toLowerCase());
      const missing = served.filter((m) => !allow.includes(m));
      if (missing.length > 0) problems.push(`${where}: Allow "${x.headers.allow ?? ""}" lacks ${missing.join(", ")}`);
    }
    return problems;
  }

  return {
    checked: () => counts,
    check(x) {
      const url = new URL(x.url);
      const method = x.method.toLowerCase();
      const where = `${x.method} ${url.pathname}${url.search} → ${x.status}`;
      // Next's canonical redirect of a trailing slash: not an answer of the API's, the client follows it.
      if (
        x.status === 308 &&
        url.pathname.endsWith("/") &&
        x.headers?.location !== undefined &&
        new URL(x.headers.location, url).pathname === url.pathname.replace(/\/+$/, "")
      )
        return [];
      const op = backend.matchOperation({ method, path: url.pathname, headers: {} });
      if (!op) return outsideOperations(x, url, where);
      const id = op.operationId ?? `${method} ${op.path}`;
      counts.set(id, (counts.get(id) ?? 0) + 1);
      const response = doc.paths[op.path]?.[method]?.responses[String(x.status)];
      if (!response) {
        const listed = Object.keys(doc.paths[op.path][method].responses).join(", ");
        return [`${where}: status not in ${id}'s responses (${listed}); body ${(x.body ?? "").slice(0, 200)}`];
      }
      if (!response.content) {
        return x.body ? [`${where}: the document says no body; got ${x.body.slice(0, 120)}`] : [];
      }
      const media = Object.keys(response.content).find((m) => x.contentType.startsWith(m));
      if (!media) return [`${where}: content type "${x.contentType}" not among ${Object.keys(response.content)}`];
      // The transport kept no body (a page that navigated away before reading it): status and type were checked.
      if (x.body === null) return [];
      if (media === "application/json") {
        let body: unknown;
        try {
          body = JSON.parse(x.body);
        } catch {
          return [`${where}: not JSON: ${x.body.slice(0, 120)}`];
        }
        const r = backend.validator.validateResponse(body, op, x.status);
        return (r.errors ?? []).map(
          (e) => `${where}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`,
        );
      }
      const schema = response.content[media].schema;
      if (!schema) return [];
      const key = `${id} ${x.status} ${media}`;
      let v = textSchemas.get(key);
      if (!v) textSchemas.set(key, (v = ajv.compile({ ...schema, components: doc.components })));
      return v(x.body) ? [] : (v.errors ?? []).map((e) => `${where}: ${e.instancePath || "/"} ${e.message}`);
    },
  };
}

/** Whether an answer is the API's (not a page, an asset or a fake service). */
export function isApiAnswer(appUrl: string, url: string, method: string): boolean {
  if (method === "HEAD" || method === "OPTIONS") return false;
  const u = new URL(url);
  return u.origin === new URL(appUrl).origin && u.pathname.startsWith("/api/");
}

// ---------------------------------------------------------------------------------------------
// What the specs saw: answers are recorded as they arrive and checked when the test ends
// (e2e/fixtures.ts fails the test on any problem).

const APP_URL = `http://127.0.0.1:${E2E_PORTS.app}`;
const pending: Promise<string[]>[] = [];
let checker: Promise<ContractChecker> | undefined;
const total = new Map<string, number>();

function served(): Promise<ContractChecker> {
  // The document as a client downloads it, fetched once per worker process.
  checker ??= fetch(`${APP_URL}/api/openapi.json`)
    .then((r) => {
      if (!r.ok) throw new Error(`GET /api/openapi.json answered ${r.status}`);
      return r.json() as Promise<Doc>;
    })
    .then(contractChecker);
  return checker;
}

function record(method: string, url: string, answer: () => Promise<Omit<Exchange, "method" | "url">>): void {
  if (!isApiAnswer(APP_URL, url, method)) return;
  pending.push(answer().then(async (a) => (await served()).check({ method, url, ...a })));
}

/** Problems found in the answers recorded since the last call (and how many answers they were). */
export async function takeProblems(): Promise<{ answers: number; problems: string[] }> {
  const found = await Promise.all(pending.splice(0));
  return { answers: found.length, problems: found.flat() };
}

/** Answers checked per operation over the whole run so far, for the run's summary. */
export async function checkedSoFar(): Promise<Record<string, number>> {
  if (!checker) return {};
  for (const [op, n] of (await checker).checked()) total.set(op, n);
  return Object.fromEntries([...total].sort());
}

/** Records an answer the browser got (a page's fetch or navigation). */
export function recordBrowserAnswer(r: PwResponse): void {
  const req = r.request();
  record(req.method(), r.url(), async () => ({
    status: r.status(),
    contentType: r.headers()["content-type"] ?? "",
    headers: r.headers(),
    // A redirect has no body, and a page that navigated away may have dropped it.
    body: await r.text().catch(() => null),
  }));
}

const REQUEST_METHODS = new Set(["get", "post", "put", "patch", "delete", "fetch"]);

/** The same request context, with every API answer it gets recorded. */
export function watchRequests(ctx: APIRequestContext): APIRequestContext {
  return new Proxy(ctx, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !REQUEST_METHODS.has(prop)) return value.bind(target);
      return async (urlOrRequest: string | PwRequest, options?: { method?: string }) => {
        const res = (await value.call(target, urlOrRequest, options)) as APIResponse;
        const method =
          prop === "fetch"
            ? (options?.method ?? (typeof urlOrRequest === "string" ? "GET" : urlOrRequest.method())).toUpperCase()
            : prop.toUpperCase();
        record(method, res.url(), async () => ({
          status: res.status(),
          contentType: res.headers()["content-type"] ?? "",
          headers: res.headers(),
          body: await res.text().catch(() => null),
        }));
        return res;
      };
    },
  });
}

/** A fetch that records the API answers it gets (for the typed client). */
export const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const method = (input instanceof Request ? input.method : (init?.method ?? "GET")).toUpperCase();
  const copy = res.clone();
  record(method, res.url, async () => ({
    status: copy.status,
    contentType: copy.headers.get("content-type") ?? "",
    headers: Object.fromEntries(copy.headers),
    body: await copy.text(),
  }));
  return res;
};
