// Fake OpenAI-compatible embeddings for the Playwright journeys, with a control API that makes it
// fail or slow down only for requests that carry a marker, so one spec's fault never touches the
// documents of another.
//
//   POST   /v1/embeddings            OpenAI wire format; deterministic vectors (embedLocal)
//   POST   /control/rules            {match, status?, delayMs?} or an array of them; replaces a rule
//                                    with the same `match`
//   GET    /control/rules            [{match, status, delayMs, hits}]
//   DELETE /control/rules/:match     removes one rule (the provider "recovers" for that marker)
//   DELETE /control/rules            removes every rule
//
// A rule applies to an embeddings request when any of its inputs contains `match`; the first such
// rule (in the order they were added) wins. `delayMs` waits before answering; `status` answers with
// an OpenAI-style error of that HTTP status (after the delay, if both are set). Every applied
// request counts as a hit.

import {
  apiError,
  embeddingItems,
  embeddingsList,
  encodeItems,
  requestDimensions,
  requestTexts,
  sendJson,
} from "../../test/helpers/openai-embeddings";
import { readJson, type Handler, type Router } from "./router";

export type Rule = { match: string; status: number | null; delayMs: number | null };
type StoredRule = Rule & { hits: number };

export interface EmbeddingsOptions {
  /** When set, embeddings requests must carry `Authorization: Bearer <apiKey>`; others get 401. */
  apiKey?: string;
  /** Dimensions used when a request does not send `dimensions`. */
  dimensions: number;
}

const MAX_DELAY_MS = 120_000;

/** Parses one rule from the control API; throws an Error with a readable message when invalid. */
export function parseRule(raw: unknown): Rule {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("a rule is a JSON object");
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !["match", "status", "delayMs"].includes(k));
  if (unknown.length) throw new Error(`unknown rule field(s): ${unknown.join(", ")}`);
  if (typeof r.match !== "string" || r.match.length < 3)
    throw new Error("`match` must be a string of at least 3 characters");
  const status = r.status ?? null;
  if (status !== null && (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 599)) {
    throw new Error("`status` must be an HTTP error status (400-599)");
  }
  const delayMs = r.delayMs ?? null;
  if (
    delayMs !== null &&
    (typeof delayMs !== "number" || !Number.isFinite(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS)
  ) {
    throw new Error(`\`delayMs\` must be a number from 0 to ${MAX_DELAY_MS}`);
  }
  if (status === null && delayMs === null) throw new Error("a rule needs `status`, `delayMs` or both");
  return { match: r.match, status, delayMs };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function errorFor(status: number, match: string) {
  const why = `fake provider rule "${match}"`;
  if (status === 429) return apiError(`Rate limit reached for requests (${why})`, "requests", "rate_limit_exceeded");
  if (status >= 500) return apiError(`The server had an error while processing your request (${why}).`, "server_error");
  return apiError(`The request was rejected (${why}).`, "invalid_request_error");
}

export function mountEmbeddings(router: Router, options: EmbeddingsOptions): void {
  const rules = new Map<string, StoredRule>();
  const list = () => [...rules.values()].map((r) => ({ ...r }));

  const embeddings: Handler = async (req, res) => {
    let body: Record<string, unknown>;
    try {
      body = await readJson(req);
    } catch {
      return sendJson(res, 400, apiError("We could not parse the JSON body of your request.", "invalid_request_error"));
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, apiError("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"));
    }
    const texts = requestTexts(body);
    if (typeof body.model !== "string" || texts.length === 0) {
      return sendJson(res, 400, apiError("'model' and a non-empty 'input' are required", "invalid_request_error"));
    }
    const rule = [...rules.values()].find((r) => texts.some((t) => t.includes(r.match)));
    if (rule) {
      rule.hits++;
      if (rule.delayMs) await sleep(rule.delayMs);
      if (rule.status !== null) {
        return sendJson(
          res,
          rule.status,
          errorFor(rule.status, rule.match),
          rule.status === 429 ? { "retry-after": "1" } : {},
        );
      }
    }
    const data = encodeItems(embeddingItems(texts, requestDimensions(body, options.dimensions)), body.encoding_format);
    sendJson(res, 200, embeddingsList(data, body.model, texts));
  };

  router.post("/v1/embeddings", embeddings);
  router.post("/embeddings", embeddings);

  router.get("/control/rules", (_req, res) => sendJson(res, 200, { rules: list() }));

  router.post("/control/rules", async (req, res) => {
    let parsed: Rule[];
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      parsed = (Array.isArray(raw) ? raw : [raw]).map(parseRule);
    } catch (err) {
      return sendJson(res, 400, {
        error: { code: "BAD_RULE", message: err instanceof Error ? err.message : String(err) },
      });
    }
    for (const r of parsed) {
      rules.delete(r.match); // a replaced rule moves to the end, as if added now
      rules.set(r.match, { ...r, hits: 0 });
    }
    sendJson(res, 200, { rules: list() });
  });

  router.delete("/control/rules/:match", (_req, res, params) => {
    const rule = rules.get(params.match);
    rules.delete(params.match);
    sendJson(res, 200, { removed: rule ? { ...rule } : null });
  });

  router.delete("/control/rules", (_req, res) => {
    const removed = rules.size;
    rules.clear();
    sendJson(res, 200, { removed });
  });
}
