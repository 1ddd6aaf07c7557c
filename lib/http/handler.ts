import { ZodError } from "zod";
import { DomainError } from "../domain/errors";
import { headersOf, statusOf } from "./errors";
import { readsOnly, routeFor, routeRule, type RouteRule } from "./routes";
import { runWithRequestContext, setRequestRead, type RequestContext } from "./request-context";
import { noteWrite } from "../db/recent-writes";
import {
  chooseReadPool,
  formatLsn,
  LSN_COOKIE,
  LSN_HEADER,
  primaryLsn,
  READ_FROM_HEADER,
  replicaUrl,
  requiredLsn,
} from "../db/replica";
import { log } from "../log";
import { failSpan, startRequestSpan, traceparentOf, withContext } from "../tracing";
import { authorize } from "../auth/authenticate";
import type { Principal } from "../auth/principal";

export function json(data: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

export function errorResponse(err: unknown): Response {
  if (err instanceof DomainError)
    return json(
      { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } },
      statusOf(err),
      headersOf(err),
    );
  if (err instanceof ZodError) {
    const first = err.issues[0];
    const where = first?.path.length ? `${first.path.join(".")}: ` : "";
    return json(
      { error: { code: "VALIDATION_FAILED", message: `${where}${first?.message ?? "invalid request"}` } },
      400,
    );
  }
  log.error({ err }, "unhandled error in request");
  return json({ error: { code: "INTERNAL_ERROR", message: "internal error" } }, 500);
}

type Ctx<P> = { params: Promise<P> };

/**
 * Wraps a route handler so every failure becomes a JSON error with a stable code, and every request
 * leaves one log line: method, route pattern, status, milliseconds and the caller's subject. The
 * pattern (`/api/v1/tenants/[tenant]/documents/[key]`), not the URL: no query string (sign-in codes,
 * tokens), no body, no header. No authorization: for the table's public rows.
 */
export function publicHandler<P = Record<string, string>>(fn: (req: Request, params: P) => Promise<Response>) {
  return async (req: Request, ctx: Ctx<P>): Promise<Response> => {
    const started = performance.now();
    const rc: RequestContext = { subject: null };
    const route = routePattern(req.url);
    const traced = startRequestSpan(req, route);
    let res: Response;
    try {
      const run = () => runWithRequestContext(rc, async () => fn(req, (await ctx?.params) as P));
      if (traced) {
        rc.traceparent = traceparentOf(traced.span);
        res = await withContext(traced.ctx, run);
      } else res = await run();
    } catch (err) {
      res = errorResponse(err);
    }
    if (traced) {
      traced.span.setAttribute("http.response.status_code", res.status);
      if (res.status >= 500) failSpan(traced.span, new Error(`status ${res.status}`));
      traced.span.end();
    }
    log.info(
      {
        method: req.method,
        route,
        status: res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        subject: rc.subject,
      },
      "request",
    );
    return res;
  };
}

/**
 * publicHandler, with the authorization of the route table's row `route` ("POST /api/v1/tasks/retry")
 * applied before `fn` runs; `fn` gets the caller. The row rides on the result, so a test can check
 * that each route file serves its own row.
 */
export function handler<P = Record<string, string>>(
  route: string,
  fn: (req: Request, params: P, principal: Principal) => Promise<Response>,
) {
  const rule = routeRule(route);
  if (rule.auth === "public") throw new Error(`${route} is public: serve it with publicHandler`);
  const reads = readsOnly(rule);
  return Object.assign(
    publicHandler<P>(async (req, params) => {
      const principal = await authorize(req, rule, params as Record<string, string | undefined>);
      if (replicaUrl() === null) {
        const res = await fn(req, params, principal);
        if (!reads && res.status < 400) noteWrite(principal.subject);
        return res;
      }
      if (reads) {
        const read = await chooseReadPool(requiredLsn(req, principal.subject));
        setRequestRead(read);
        let res: Response;
        try {
          res = await fn(req, params, principal);
        } catch (err) {
          // A 404 read from the replica says "not there yet" as much as "not there": say where.
          res = errorResponse(err);
        }
        return withHeaders(res, { [READ_FROM_HEADER]: read.source });
      }
      const res = await fn(req, params, principal);
      if (res.status >= 400) return res;
      let lsn: bigint;
      try {
        lsn = await primaryLsn();
      } catch (err) {
        noteWrite(principal.subject);
        // The write has committed: its answer stands. Without a position the caller's next read
        // may meet the replica before it replays the write, within REPLICA_MAX_LAG_SECONDS.
        log.warn({ err: (err as Error).message, route }, "could not read the primary's WAL position after a write");
        return res;
      }
      return withHeaders(res, writePosition(req, principal.subject, lsn));
    }),
    { rule } as { rule: RouteRule },
  );
}

/**
 * Read-your-writes with a replica: the primary's WAL position after a write, asked once the write
 * has committed, is where this caller's next reads must be. Handed back three ways, since callers
 * differ in what they return: a header (API clients that pass it on as Indexwright-Min-Lsn), a
 * cookie (browsers, across web processes), and this process's memory of the caller (scripts).
 */
function writePosition(req: Request, subject: string, lsn: bigint): Record<string, string> {
  noteWrite(subject, lsn);
  const text = formatLsn(lsn);
  const secure = new URL(req.url).protocol === "https:" ? "; Secure" : "";
  return {
    [LSN_HEADER]: text,
    "set-cookie": `${LSN_COOKIE}=${encodeURIComponent(text)}; Path=/; Max-Age=300; HttpOnly; SameSite=Lax${secure}`,
  };
}

/** `res` with `headers` added; a response whose headers are immutable (a fetched one) is copied. */
function withHeaders(res: Response, headers: Record<string, string>): Response {
  try {
    for (const [k, v] of Object.entries(headers)) res.headers.append(k, v);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    for (const [k, v] of Object.entries(headers)) copy.headers.append(k, v);
    return copy;
  }
}

function routePattern(url: string): string {
  try {
    return routeFor(new URL(url).pathname)?.path ?? "(not in lib/http/routes.ts)";
  } catch {
    return "(unparsable URL)";
  }
}

const tooLarge = (maxBytes: number) => new DomainError("PAYLOAD_TOO_LARGE", `request body exceeds ${maxBytes} bytes`);

/**
 * The raw body, refused with 413 as soon as it passes `maxBytes`: a declared Content-Length is
 * checked before reading, and a chunked (or lying) body is counted while it streams, so an
 * oversized request is never buffered whole.
 */
export async function readBody(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    parts.push(value);
  }
  return Buffer.concat(parts, total);
}

/**
 * For actions whose document lists no request body (their input is the path): a body is refused,
 * 400 VALIDATION_FAILED, rather than ignored, so a client that thinks it sends options (a reason, a
 * version) learns they are not read. Nothing past the first byte is read.
 */
export async function refuseBody(req: Request): Promise<void> {
  let sent = Number(req.headers.get("content-length") ?? "0") > 0;
  if (!sent && req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength > 0) {
        sent = true;
        break;
      }
    }
    await reader.cancel().catch(() => undefined);
  }
  if (sent)
    throw new DomainError(
      "VALIDATION_FAILED",
      "this operation takes no request body (its input is the path); send none",
    );
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Strict UTF-8: a malformed byte sequence is a 400, never silently replaced by U+FFFD. */
export function decodeUtf8(bytes: Uint8Array, what = "request body"): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DomainError("INVALID_ENCODING", `${what} is not valid UTF-8`);
  }
}

/** JSON bodies must say so: a body sent as text/plain or a form is a 415, not guessed at. */
function requireJsonContentType(req: Request): void {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new DomainError(
      "UNSUPPORTED_MEDIA_TYPE",
      `send JSON with Content-Type: application/json${type ? ` (got ${type})` : ""}`,
    );
  }
}

/** Reads a JSON body: size-capped while streaming, strict UTF-8, JSON content type; malformed JSON is a 400, never a 500. */
export async function readJson(req: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBody(req, maxBytes);
  if (bytes.length === 0) throw new DomainError("INVALID_JSON", "request body is empty");
  requireJsonContentType(req);
  return parseJson(decodeUtf8(bytes));
}

/** Like readJson, but an absent/empty body is `{}` (for actions whose fields are all optional). */
export async function readOptionalJson(req: Request, maxBytes: number): Promise<unknown> {
  const text = decodeUtf8(await readBody(req, maxBytes));
  if (!text.trim()) return {};
  requireJsonContentType(req);
  return parseJson(text);
}

function parseJson(text: string): unknown {
  if (!text.trim()) throw new DomainError("INVALID_JSON", "request body is empty");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError("INVALID_JSON", "request body is not valid JSON");
  }
  // Strict UTF-8 keeps malformed bytes out, but JSON can still spell half a character as an escape
  // ("\ud800"). Such a string has no UTF-8 form: stored or indexed, it would silently become U+FFFD.
  // Only a body that has such an escape at all is walked.
  if (SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value)) {
    throw new DomainError(
      "INVALID_ENCODING",
      "request body has an unpaired surrogate escape (\\uD800–\\uDFFF), which is not Unicode text",
    );
  }
  return value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether any string or key in a parsed JSON value holds an unpaired surrogate. Iterative: bodies may nest deeply. */
function hasLoneSurrogate(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return true;
        stack.push(item);
      }
    }
  }
  return false;
}
