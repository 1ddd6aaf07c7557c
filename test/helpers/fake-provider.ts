// A local OpenAI-compatible embeddings server for tests: real HTTP on 127.0.0.1, no mocks.
//
//   const fake = await startFakeProvider({ apiKey: "sk-test-..." });
//   new OpenAIEmbedder({ apiKey: "sk-test-...", baseURL: fake.url, ... });
//   fake.mode("429", { times: 2 });  // the next two requests answer 429, then back to the previous mode
//   fake.mode("429", { times: 3, retryAfter: "2" });  // ... with `Retry-After: 2` (default "1"; null = none)
//   fake.mode("503");                // every request answers 503 until changed
//
// Embeddings are deterministic (embedLocal) with the requested `dimensions`, or the configured
// default when the request does not send one.

import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  apiError,
  embeddingItems,
  embeddingsList,
  encodeItems,
  requestDimensions,
  requestTexts,
  sendJson,
  type EmbeddingItem,
} from "./openai-embeddings";

export type FakeMode =
  | "ok"
  | "429"
  | "500"
  | "503"
  | "slow" // answer correctly after delayMs (default 10 s)
  | "slow-body" // send headers and part of the body at once, the rest after delayMs (default 10 s)
  | "wrong-count" // one embedding too few (or one extra for a single input)
  | "wrong-dimension" // every embedding has one dimension too many
  | "wrong-index" // index 0 appears twice (an index missing), or index 1 for a single input
  | "wrong-model" // `model` names a different model
  | "shuffled" // items in reverse order, indexes correct (valid per the API)
  | "reset" // destroy the connection without answering
  | "bad-json" // 200 application/json with a truncated body
  | "400-dimensions" // 400 "This model does not support specifying dimensions."
  | "400-input" // 400 "maximum context length" (a request rejection unrelated to model/dimensions)
  | "404-model"; // 404 model_not_found

export interface FakeProviderOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`; others get 401. */
  apiKey?: string;
  /** Dimensions used when the request does not send `dimensions`. Default 1536. */
  dimensions?: number;
  /** Model name to answer with instead of echoing the requested one (e.g. a versioned name). */
  answerModel?: string;
  /**
   * Keep every request's inputs, bodies and Authorization header (default true). Long runs (the
   * chaos run) turn it off so memory stays flat; counters and `outcomes` are kept either way.
   */
  record?: boolean;
}

export interface FakeProvider {
  /** Base URL ending in /v1. */
  readonly url: string;
  /** Requests received on the embeddings endpoints (including failed/auth-rejected ones). */
  readonly requests: number;
  /** Total texts in successful (200) answers. */
  readonly textsEmbedded: number;
  /** Every embeddings request's inputs, in arrival order. */
  readonly inputs: string[][];
  /** Every embeddings request's parsed JSON body, in arrival order. */
  readonly bodies: Record<string, unknown>[];
  /** Every embeddings request's Authorization header. */
  readonly authHeaders: (string | undefined)[];
  /** How many requests were answered in each mode ("ok", "503", "slow", ...), after auth and validation. */
  readonly outcomes: Record<string, number>;
  mode(next: FakeMode, opts?: ModeOptions): void;
  /** Arrival time (Date.now()) of every embeddings request, in order. */
  readonly arrivals: number[];
  /** Counters to zero, mode back to "ok". */
  reset(): void;
  close(): Promise<void>;
}

export interface ModeOptions {
  /** Only the next `times` requests use this mode, then the previous base mode returns. */
  times?: number;
  /** Answer after this delay (for "slow"/"slow-body": the delay of the body). */
  delayMs?: number;
  /** "429": the Retry-After header value (default "1"); null sends none. */
  retryAfter?: string | null;
  /** "429": a retry-after-ms header value (OpenAI's millisecond variant); none by default. */
  retryAfterMs?: string;
}

type ActiveMode = { mode: FakeMode } & Omit<ModeOptions, "times">;

const DEFAULT_SLOW_MS = 10_000;

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const defaultDims = options.dimensions ?? 1536;
  let baseMode: ActiveMode = { mode: "ok" };
  let temp: (ActiveMode & { left: number }) | null = null;
  let arrivals: number[] = [];
  let requests = 0;
  let textsEmbedded = 0;
  let inputs: string[][] = [];
  let bodies: Record<string, unknown>[] = [];
  let authHeaders: (string | undefined)[] = [];
  let outcomes: Record<string, number> = {};
  const record = options.record ?? true;
  const timers = new Set<NodeJS.Timeout>();

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const takeMode = (): ActiveMode => {
    if (temp && temp.left > 0) {
      temp.left--;
      const m: ActiveMode = {
        mode: temp.mode,
        delayMs: temp.delayMs,
        retryAfter: temp.retryAfter,
        retryAfterMs: temp.retryAfterMs,
      };
      if (temp.left === 0) temp = null;
      return m;
    }
    return baseMode;
  };

  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "POST" || (path !== "/v1/embeddings" && path !== "/embeddings")) {
      sendJson(res, 404, apiError(`Invalid URL (${req.method} ${path})`, "invalid_request_error"));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests++;
      arrivals.push(Date.now());
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        if (record) {
          inputs.push([]);
          bodies.push({});
          authHeaders.push(req.headers.authorization);
        }
        sendJson(res, 400, apiError("We could not parse the JSON body of your request.", "invalid_request_error"));
        return;
      }
      const texts = requestTexts(body);
      if (record) {
        inputs.push(texts);
        bodies.push(body);
        authHeaders.push(req.headers.authorization);
      }

      if (options.apiKey !== undefined) {
        const auth = req.headers.authorization ?? "";
        if (auth !== `Bearer ${options.apiKey}`) {
          // Like the real API, the message echoes the key it received.
          const got = auth.replace(/^Bearer\s+/i, "");
          sendJson(
            res,
            401,
            apiError(
              `Incorrect API key provided: ${got}. You can find your API key at https://platform.openai.com/account/api-keys.`,
              "invalid_request_error",
              "invalid_api_key",
            ),
          );
          return;
        }
      }
      if (typeof body.model !== "string" || texts.length === 0) {
        sendJson(res, 400, apiError("'model' and a non-empty 'input' are required", "invalid_request_error"));
        return;
      }

      const active = takeMode();
      outcomes[active.mode] = (outcomes[active.mode] ?? 0) + 1;
      const { mode, delayMs } = active;
      const model = body.model;
      const dims = requestDimensions(body, defaultDims);
      const answer = (extraDelay = 0, fn: () => void) => {
        const d = delayMs ?? extraDelay;
        if (d > 0) later(d, fn);
        else fn();
      };

      switch (mode) {
        case "429":
          return answer(0, () => {
            const headers: Record<string, string> = {};
            const ra = active.retryAfter === undefined ? "1" : active.retryAfter;
            if (ra !== null) headers["retry-after"] = ra;
            if (active.retryAfterMs !== undefined) headers["retry-after-ms"] = active.retryAfterMs;
            sendJson(res, 429, apiError("Rate limit reached for requests", "requests", "rate_limit_exceeded"), headers);
          });
        case "500":
          return answer(0, () =>
            sendJson(res, 500, apiError("The server had an error while processing your request.", "server_error")),
          );
        case "503":
          return answer(0, () =>
            sendJson(res, 503, apiError("The engine is currently overloaded, please try again later.", "server_error")),
          );
        case "reset":
          return answer(0, () => req.socket.destroy());
        case "400-dimensions":
          return answer(0, () =>
            sendJson(
              res,
              400,
              apiError(
                "This model does not support specifying dimensions.",
                "invalid_request_error",
                null,
                "dimensions",
              ),
            ),
          );
        case "400-input":
          return answer(0, () =>
            sendJson(
              res,
              400,
              apiError(
                "This model's maximum context length is 8192 tokens, however you requested 9000 tokens.",
                "invalid_request_error",
              ),
            ),
          );
        case "404-model":
          return answer(0, () =>
            sendJson(
              res,
              404,
              apiError(
                `The model \`${String(body.model)}\` does not exist or you do not have access to it.`,
                "invalid_request_error",
                "model_not_found",
              ),
            ),
          );
        case "bad-json":
          return answer(0, () => {
            if (res.destroyed) return;
            res.writeHead(200, { "content-type": "application/json" });
            res.end('{"object":"list","data":[{"object":"embedding","ind');
          });
        default:
          break;
      }

      let data: EmbeddingItem[] = embeddingItems(texts, mode === "wrong-dimension" ? dims + 1 : dims);
      if (mode === "wrong-count") data = texts.length === 1 ? [...data, { ...data[0], index: 1 }] : data.slice(0, -1);
      if (mode === "wrong-index") {
        if (data.length === 1) data[0].index = 1;
        else data[1].index = 0;
      }
      if (mode === "shuffled") data = [...data].reverse();
      data = encodeItems(data, body.encoding_format);
      const payload = embeddingsList(
        data,
        mode === "wrong-model" ? "some-other-embedding-model" : (options.answerModel ?? model),
        texts,
      );

      if (mode === "slow-body") {
        const text = JSON.stringify(payload);
        const cut = Math.floor(text.length / 2);
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.write(text.slice(0, cut));
        later(delayMs ?? DEFAULT_SLOW_MS, () => {
          if (res.destroyed || res.writableEnded) return;
          textsEmbedded += texts.length;
          res.end(text.slice(cut));
        });
        return;
      }
      answer(mode === "slow" ? DEFAULT_SLOW_MS : 0, () => {
        if (res.destroyed || res.writableEnded) return;
        textsEmbedded += texts.length;
        sendJson(res, 200, payload);
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    get textsEmbedded() {
      return textsEmbedded;
    },
    get inputs() {
      return inputs;
    },
    get bodies() {
      return bodies;
    },
    get authHeaders() {
      return authHeaders;
    },
    get outcomes() {
      return outcomes;
    },
    get arrivals() {
      return arrivals;
    },
    mode(next, opts = {}) {
      const { times, ...rest } = opts;
      if (times !== undefined) {
        temp = times > 0 ? { mode: next, ...rest, left: times } : null;
      } else {
        temp = null;
        baseMode = { mode: next, ...rest };
      }
    },
    reset() {
      requests = 0;
      textsEmbedded = 0;
      inputs = [];
      bodies = [];
      authHeaders = [];
      arrivals = [];
      outcomes = {};
      baseMode = { mode: "ok" };
      temp = null;
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
