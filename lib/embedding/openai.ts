// OpenAI (and OpenAI-compatible) embedding provider.
//
// One embed() call = one POST /embeddings request. The SDK never retries (maxRetries: 0): retries,
// backoff and attempt accounting belong to the task engine, which decides from the TaskError code.
//
// Error mapping (every failure leaves as a TaskError with a redacted message, except caller aborts):
//
//   caller's AbortSignal aborted (before or during)    -> rethrow signal.reason unchanged
//   HTTP 429                                           -> EMBEDDING_RATE_LIMITED  (retry-after in the message and
//                                                         in retryAfterSeconds: see parseRetryAfter)
//   SDK timeout, our whole-call deadline, HTTP 408     -> EMBEDDING_TIMEOUT
//   HTTP 5xx                                           -> EMBEDDING_PROVIDER_UNAVAILABLE
//   connection refused / reset / DNS / TLS failure     -> EMBEDDING_PROVIDER_UNAVAILABLE
//   HTTP 401 / 403                                     -> EMBEDDING_PROVIDER_UNAVAILABLE  (see below)
//   HTTP 404 not mentioning the model (wrong base URL) -> EMBEDDING_PROVIDER_UNAVAILABLE
//   HTTP 409                                           -> EMBEDDING_PROVIDER_UNAVAILABLE  (transient)
//   HTTP 400/404/422 about the model or dimensions     -> EMBEDDING_INVALID_RESPONSE (configuration mismatch)
//   any other 4xx (e.g. input too long)                -> EMBEDDING_INVALID_RESPONSE (the same request would be
//                                                         rejected again: retrying cannot help)
//   malformed body / failed response validation        -> EMBEDDING_INVALID_RESPONSE
//   circuit open                                       -> EMBEDDING_PROVIDER_UNAVAILABLE ("circuit open")
//   anything else (e.g. body stream cut mid-read)      -> EMBEDDING_PROVIDER_UNAVAILABLE
//
// 401/403 are mapped to the retryable EMBEDDING_PROVIDER_UNAVAILABLE on purpose: a bad or revoked key
// is an operator problem, not a property of the document, so documents must not fail permanently
// because of it. They count toward the circuit breaker, so a bad key does not hammer the provider.
//
// Circuit breaker (per embedder instance): after `circuit.failures` (default 5) consecutive
// PROVIDER_UNAVAILABLE/TIMEOUT outcomes the circuit opens and calls fail fast, without any network
// traffic, for `circuit.openMs` (default 30 s). Then it is half-open: exactly one trial call goes
// through (concurrent calls keep failing fast); success closes the circuit, another
// unavailable/timeout outcome re-opens it. Any answer that proves the provider is reachable
// (success, 429, a 4xx, an invalid body) resets the consecutive-failure count. Caller aborts are
// neutral.
//
// Response validation (each failure -> EMBEDDING_INVALID_RESPONSE):
//   - body is an object with a `data` array of exactly texts.length items;
//   - every item has an integer `index`, and the indexes are exactly 0..n-1 (any order: items are
//     reordered by index, which the API allows; duplicates, gaps, out-of-range are invalid);
//   - every `embedding` is an array of `dimensions` finite numbers;
//   - `model`, when present, matches the requested model leniently (see modelsMatch).
//
// Messages never contain the API key: the literal key is scrubbed and everything goes through
// redact(). SDK errors are not attached as `cause` (they carry headers/bodies we do not control).

import OpenAI from "openai";
import type { Embedder } from "./types";
import { TaskError, redact } from "../queue/errors";
import type { ErrorCode } from "../domain/constants";

export interface OpenAIEmbedderOptions {
  apiKey: string;
  /** e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (defaults to the SDK's default). */
  baseURL?: string;
  model: string;
  dimensions: number;
  /** Send `dimensions` in the request. Default: true only for text-embedding-3* models. */
  sendDimensions?: boolean;
  /** Deadline for the whole call (connect, headers and body). */
  timeoutMs: number;
  circuit?: { failures?: number; openMs?: number };
}

const DEFAULT_CIRCUIT_FAILURES = 5;
const DEFAULT_CIRCUIT_OPEN_MS = 30_000;

/**
 * Whether the model named in a response is the model we asked for. Lenient on purpose, because
 * servers echo a resolved name: equal, or one is a prefix of the other immediately followed by
 * `-` or `:` ("text-embedding-3-small" vs "text-embedding-3-small-2024-01-25",
 * "nomic-embed-text" vs "nomic-embed-text:latest"). Comparison is case-sensitive after trimming.
 */
export function modelsMatch(requested: string, returned: string): boolean {
  const a = requested.trim();
  const b = returned.trim();
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (short.length === 0 || !long.startsWith(short)) return false;
  const next = long[short.length];
  return next === "-" || next === ":";
}

export function defaultSendDimensions(model: string): boolean {
  return /^text-embedding-3/.test(model);
}

type Outcome = "success" | "reachable" | "failure" | "neutral";

export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private readonly client: OpenAI;
  private readonly apiKey: string;
  private readonly sendDimensions: boolean;
  private readonly timeoutMs: number;
  private readonly circuitFailures: number;
  private readonly circuitOpenMs: number;

  // Circuit state.
  private consecutiveFailures = 0;
  private openUntil = 0; // epoch ms; 0 = closed
  private trialInFlight = false;

  constructor(opts: OpenAIEmbedderOptions) {
    if (!opts.apiKey) throw new Error("OpenAIEmbedder: apiKey is required");
    if (!opts.model) throw new Error("OpenAIEmbedder: model is required");
    if (!Number.isInteger(opts.dimensions) || opts.dimensions < 1) {
      throw new Error(`OpenAIEmbedder: dimensions must be a positive integer, got ${opts.dimensions}`);
    }
    if (!(opts.timeoutMs > 0)) throw new Error(`OpenAIEmbedder: timeoutMs must be positive, got ${opts.timeoutMs}`);
    this.model = opts.model;
    this.dimensions = opts.dimensions;
    this.apiKey = opts.apiKey;
    this.sendDimensions = opts.sendDimensions ?? defaultSendDimensions(opts.model);
    this.timeoutMs = opts.timeoutMs;
    this.circuitFailures = Math.max(1, opts.circuit?.failures ?? DEFAULT_CIRCUIT_FAILURES);
    this.circuitOpenMs = Math.max(0, opts.circuit?.openMs ?? DEFAULT_CIRCUIT_OPEN_MS);
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL,
      timeout: opts.timeoutMs,
      maxRetries: 0, // retries are the task engine's job
    });
  }

  async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    signal.throwIfAborted();
    if (texts.length === 0) return [];

    const isTrial = this.admit();
    let outcome: Outcome = "neutral";
    try {
      const vectors = await this.request(texts, signal);
      outcome = "success";
      return vectors;
    } catch (err) {
      if (signal.aborted) {
        outcome = "neutral";
        throw signal.reason;
      }
      const te = err instanceof TaskError ? err : this.mapError(err);
      outcome =
        te.code === "EMBEDDING_PROVIDER_UNAVAILABLE" || te.code === "EMBEDDING_TIMEOUT" ? "failure" : "reachable";
      throw te;
    } finally {
      this.record(outcome, isTrial);
    }
  }

  // ---- circuit breaker ------------------------------------------------------------------------

  /**
   * Milliseconds until the circuit lets a call through (0 when closed or a half-open trial is
   * free). The worker claims nothing meanwhile: a claimed task could only fail fast and be
   * charged an attempt for an outage it had no part in.
   */
  unavailableForMs(): number {
    if (this.openUntil === 0) return 0;
    const left = this.openUntil - Date.now();
    if (left > 0) return left;
    return this.trialInFlight ? 250 : 0;
  }

  /** Throws when the circuit is open; returns true when this call is the half-open trial. */
  private admit(): boolean {
    if (this.openUntil === 0) return false;
    const now = Date.now();
    if (now < this.openUntil) {
      // The retry is due when the circuit lets a trial through, not before: a task that came back
      // sooner (its own backoff is shorter) would only fail fast again and spend another attempt.
      const trialIn = Math.ceil((this.openUntil - now) / 1000);
      throw this.fail(
        "EMBEDDING_PROVIDER_UNAVAILABLE",
        `embedding provider circuit open after ${this.consecutiveFailures} consecutive failures; next trial in ${trialIn}s`,
        { retryAfterSeconds: trialIn },
      );
    }
    if (this.trialInFlight) {
      throw this.fail(
        "EMBEDDING_PROVIDER_UNAVAILABLE",
        "embedding provider circuit open (half-open trial in progress)",
      );
    }
    this.trialInFlight = true;
    return true;
  }

  private record(outcome: Outcome, isTrial: boolean): void {
    if (isTrial) this.trialInFlight = false;
    switch (outcome) {
      case "success":
      case "reachable":
        this.consecutiveFailures = 0;
        this.openUntil = 0;
        return;
      case "failure":
        this.consecutiveFailures++;
        if (isTrial || this.consecutiveFailures >= this.circuitFailures) {
          this.openUntil = Date.now() + this.circuitOpenMs;
        }
        return;
      case "neutral":
        return;
    }
  }

  // ---- request --------------------------------------------------------------------------------

  private async request(texts: string[], signal: AbortSignal): Promise<number[][]> {
    // One controller for the whole call: aborted by the caller (reason = caller's reason) or by our
    // deadline. The SDK's own `timeout` only covers the wait for response headers; this deadline
    // also covers reading the body.
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort(this.fail("EMBEDDING_TIMEOUT", `embedding request timed out after ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    const onAbort = () => ctl.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let aborted: Promise<never> | undefined;
    try {
      const call = this.client.embeddings.create(
        {
          model: this.model,
          input: texts,
          ...(this.sendDimensions ? { dimensions: this.dimensions } : {}),
          encoding_format: "float",
        },
        { signal: ctl.signal },
      );
      // Settle as soon as the controller fires even if some layer does not honour the signal.
      aborted = new Promise<never>((_, reject) => {
        ctl.signal.addEventListener("abort", () => reject(ctl.signal.reason), { once: true });
      });
      aborted.catch(() => {});
      let response: unknown;
      try {
        response = await Promise.race([call, aborted]);
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (timedOut) throw ctl.signal.reason;
        throw err;
      }
      if (signal.aborted) throw signal.reason;
      return this.validate(response, texts.length);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  private validate(response: unknown, n: number): number[][] {
    const bad = (msg: string) => this.fail("EMBEDDING_INVALID_RESPONSE", `invalid embedding response: ${msg}`);
    if (typeof response !== "object" || response === null) throw bad("body is not a JSON object");
    const body = response as { data?: unknown; model?: unknown };
    if (!Array.isArray(body.data)) throw bad("`data` is not an array");
    if (body.data.length !== n) throw bad(`asked for ${n} embeddings, got ${body.data.length}`);
    if (body.model !== undefined && body.model !== null) {
      if (typeof body.model !== "string") throw bad("`model` is not a string");
      if (!modelsMatch(this.model, body.model))
        throw bad(`model mismatch: requested "${this.model}", provider answered "${body.model}"`);
    }
    const out: (number[] | undefined)[] = new Array(n);
    for (let k = 0; k < n; k++) {
      const item = body.data[k] as { index?: unknown; embedding?: unknown } | null;
      if (typeof item !== "object" || item === null) throw bad(`data[${k}] is not an object`);
      const idx = item.index;
      if (idx === undefined || idx === null) throw bad(`data[${k}] has no index`);
      if (typeof idx !== "number" || !Number.isInteger(idx) || idx < 0 || idx >= n) {
        throw bad(`data[${k}].index ${JSON.stringify(idx)} is not an integer in 0..${n - 1}`);
      }
      if (out[idx] !== undefined) throw bad(`duplicate index ${idx}`);
      const emb = item.embedding;
      if (!Array.isArray(emb)) throw bad(`data[${k}].embedding is not an array of numbers`);
      if (emb.length !== this.dimensions) {
        throw bad(`data[${k}].embedding has ${emb.length} dimensions, expected ${this.dimensions}`);
      }
      for (let d = 0; d < emb.length; d++) {
        const x = emb[d];
        if (typeof x !== "number" || !Number.isFinite(x))
          throw bad(`data[${k}].embedding[${d}] is not a finite number`);
      }
      out[idx] = emb as number[];
    }
    // n items, n distinct in-range indexes => every slot is filled; check anyway.
    for (let i = 0; i < n; i++) if (out[i] === undefined) throw bad(`missing index ${i}`);
    return out as number[][];
  }

  // ---- errors ---------------------------------------------------------------------------------

  private fail(code: ErrorCode, message: string, extra?: { retryAfterSeconds?: number }): TaskError {
    return new TaskError(code, this.scrub(message), extra);
  }

  private scrub(message: string): string {
    const key = this.apiKey;
    const s = key && key.length >= 4 ? message.split(key).join("[redacted]") : message;
    return redact(s);
  }

  private mapError(err: unknown): TaskError {
    if (err instanceof OpenAI.APIUserAbortError) {
      // Only our controller aborts the SDK; a caller abort was handled before we got here.
      return this.fail("EMBEDDING_TIMEOUT", `embedding request aborted after ${this.timeoutMs} ms deadline`);
    }
    if (err instanceof OpenAI.APIConnectionTimeoutError) {
      return this.fail("EMBEDDING_TIMEOUT", `embedding request timed out after ${this.timeoutMs} ms`);
    }
    if (err instanceof OpenAI.APIConnectionError) {
      return this.fail(
        "EMBEDDING_PROVIDER_UNAVAILABLE",
        `embedding provider unreachable: ${describeConnectionError(err)}`,
      );
    }
    if (err instanceof OpenAI.APIError && typeof err.status === "number") {
      const status = err.status;
      const detail = err.message;
      if (status === 429) {
        const ra = err.headers?.get("retry-after-ms")
          ? `${err.headers.get("retry-after-ms")} ms`
          : err.headers?.get("retry-after")
            ? `${err.headers.get("retry-after")} s`
            : undefined;
        return this.fail(
          "EMBEDDING_RATE_LIMITED",
          `embedding provider rate limited the request${ra ? ` (retry-after ${ra})` : ""}: ${detail}`,
          {
            retryAfterSeconds: parseRetryAfter(err.headers),
          },
        );
      }
      if (status === 408) return this.fail("EMBEDDING_TIMEOUT", `embedding provider request timeout: ${detail}`);
      if (status >= 500) return this.fail("EMBEDDING_PROVIDER_UNAVAILABLE", `embedding provider error: ${detail}`);
      if (status === 401 || status === 403) {
        return this.fail(
          "EMBEDDING_PROVIDER_UNAVAILABLE",
          `embedding provider refused the credentials (check OPENAI_API_KEY): ${detail}`,
        );
      }
      const aboutConfig = isAboutModelOrDimensions(err);
      if (status === 404 && !aboutConfig) {
        return this.fail(
          "EMBEDDING_PROVIDER_UNAVAILABLE",
          `embedding endpoint not found (check OPENAI_BASE_URL): ${detail}`,
        );
      }
      if (status === 409) return this.fail("EMBEDDING_PROVIDER_UNAVAILABLE", `embedding provider conflict: ${detail}`);
      if (aboutConfig) {
        return this.fail(
          "EMBEDDING_INVALID_RESPONSE",
          `embedding provider rejected model "${this.model}" / dimensions ${this.dimensions}: ${detail}`,
        );
      }
      return this.fail("EMBEDDING_INVALID_RESPONSE", `embedding provider rejected the request: ${detail}`);
    }
    if (err instanceof SyntaxError) {
      return this.fail(
        "EMBEDDING_INVALID_RESPONSE",
        `invalid embedding response: body is not valid JSON (${err.message})`,
      );
    }
    const msg = err instanceof Error ? `${err.name}: ${err.message}${causeText(err)}` : String(err);
    return this.fail("EMBEDDING_PROVIDER_UNAVAILABLE", `embedding request failed: ${msg}`);
  }
}

/**
 * How long the provider asked us to wait, in seconds, or undefined when it did not say (or said
 * something unreadable). `retry-after-ms` (OpenAI's own, milliseconds) wins over the standard
 * `retry-after`, which is either delta-seconds or an HTTP date (RFC 9110 §10.2.3); a date in the
 * past means "now" (0). Negative or non-numeric values are ignored rather than guessed at.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined | null,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const ra = headers.get("retry-after")?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Number(ra);
  // Only an HTTP date (it names a weekday or month); Date.parse alone would accept "-5" as a year.
  if (!/[a-z]{3}/i.test(ra)) return undefined;
  const at = Date.parse(ra);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - now) / 1000);
}

/** A provider rejection caused by our model/dimensions configuration (not by the input texts). */
function isAboutModelOrDimensions(err: InstanceType<typeof OpenAI.APIError>): boolean {
  if (err.param === "model" || err.param === "dimensions") return true;
  if (err.code === "model_not_found") return true;
  const m = err.message;
  return (
    /dimension/i.test(m) ||
    /\bmodel\b[^.]*\b(not found|does not exist|doesn't exist|not supported|does not support|is not available|unknown|invalid)\b/i.test(
      m,
    ) ||
    /\b(unknown|invalid|unsupported|no such) model\b/i.test(m)
  );
}

function causeText(err: Error): string {
  const c = (err as { cause?: unknown }).cause;
  if (!c) return "";
  if (c instanceof Error) {
    const code = (c as { code?: unknown }).code;
    return ` (${typeof code === "string" ? `${code} ` : ""}${c.message})`;
  }
  return ` (${String(c)})`;
}

/** "Connection error." plus the underlying system error (ECONNREFUSED, ENOTFOUND, ...). */
function describeConnectionError(err: Error): string {
  // SDK: APIConnectionError.cause = fetch TypeError("fetch failed"), whose cause is the system error.
  let c: unknown = (err as { cause?: unknown }).cause;
  const parts: string[] = [err.message];
  for (let depth = 0; c instanceof Error && depth < 3; depth++) {
    const code = (c as { code?: unknown }).code;
    parts.push(typeof code === "string" ? `${code}: ${c.message}` : c.message);
    c = (c as { cause?: unknown }).cause;
  }
  return parts.filter((p, i) => p && parts.indexOf(p) === i).join(" <- ");
}
