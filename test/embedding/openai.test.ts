import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OpenAIEmbedder, modelsMatch, type OpenAIEmbedderOptions } from "../../lib/embedding/openai";
import { createEmbedder, LocalEmbedder } from "../../lib/embedding";
import { embedLocal } from "../../lib/pipeline/local-embedder";
import { loadConfig } from "../../lib/config";
import { TaskError } from "../../lib/queue/errors";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider";

const KEY = "sk-test-0123456789abcdefSECRET";
const DIMS = 64;
const MODEL = "text-embedding-3-small";

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ apiKey: KEY });
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.reset();
});

function embedder(over: Partial<OpenAIEmbedderOptions> = {}): OpenAIEmbedder {
  return new OpenAIEmbedder({
    apiKey: KEY,
    baseURL: fake.url,
    model: MODEL,
    dimensions: DIMS,
    timeoutMs: 2000,
    ...over,
  });
}

const live = () => new AbortController().signal;

/** Runs p, expects a TaskError, returns it. */
async function taskError(p: Promise<unknown>): Promise<TaskError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TaskError);
    return err as TaskError;
  }
  throw new Error("expected a TaskError, the call succeeded");
}

function noKey(err: TaskError) {
  expect(err.message).not.toContain(KEY);
  expect(err.message).not.toContain("SECRET");
}

async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

describe("OpenAIEmbedder: happy path", () => {
  it("returns one vector per text, in order, with the configured dimensions", async () => {
    const e = embedder();
    const texts = ["alpha beta", "gamma delta", "epsilon", "zeta eta theta"];
    const out = await e.embed(texts, live());
    expect(out).toHaveLength(texts.length);
    for (const v of out) expect(v).toHaveLength(DIMS);
    expect(out).toEqual(embedLocal(texts, DIMS));
    expect(fake.requests).toBe(1);
    expect(fake.textsEmbedded).toBe(4);
    expect(fake.inputs).toEqual([texts]);
    expect(fake.bodies[0]).toMatchObject({ model: MODEL, dimensions: DIMS, encoding_format: "float", input: texts });
    expect(fake.authHeaders[0]).toBe(`Bearer ${KEY}`);
    expect(e.model).toBe(MODEL);
    expect(e.dimensions).toBe(DIMS);
  });

  it("reorders items returned out of order by their index", async () => {
    fake.mode("shuffled");
    const texts = ["one", "two", "three", "four", "five"];
    const out = await embedder().embed(texts, live());
    expect(out).toEqual(embedLocal(texts, DIMS));
  });

  it("makes no request for an empty batch", async () => {
    expect(await embedder().embed([], live())).toEqual([]);
    expect(fake.requests).toBe(0);
  });

  it("sends `dimensions` only for text-embedding-3* models unless told otherwise", async () => {
    // The fake answers with its default (1536) when no dimensions are sent.
    const other = embedder({ model: "nomic-embed-text", dimensions: 1536 });
    await other.embed(["x"], live());
    expect(fake.bodies[0]).not.toHaveProperty("dimensions");
    await embedder({ model: "nomic-embed-text", sendDimensions: true }).embed(["x"], live());
    expect(fake.bodies[1]).toMatchObject({ dimensions: DIMS });
    await embedder({ sendDimensions: false, dimensions: 1536 }).embed(["x"], live());
    expect(fake.bodies[2]).not.toHaveProperty("dimensions");
  });

  it("accepts a versioned model name in the response", async () => {
    const f2 = await startFakeProvider({ answerModel: `${MODEL}-2024-01-25` });
    try {
      const out = await new OpenAIEmbedder({
        apiKey: KEY,
        baseURL: f2.url,
        model: MODEL,
        dimensions: DIMS,
        timeoutMs: 2000,
      }).embed(["a"], live());
      expect(out).toHaveLength(1);
    } finally {
      await f2.close();
    }
  });
});

describe("modelsMatch", () => {
  it("is lenient about version suffixes only", () => {
    expect(modelsMatch("text-embedding-3-small", "text-embedding-3-small")).toBe(true);
    expect(modelsMatch("text-embedding-3-small", "text-embedding-3-small-2024-01-25")).toBe(true);
    expect(modelsMatch("nomic-embed-text", "nomic-embed-text:latest")).toBe(true);
    expect(modelsMatch("nomic-embed-text:latest", "nomic-embed-text")).toBe(true);
    expect(modelsMatch("text-embedding-3-small", "text-embedding-3-large")).toBe(false);
    expect(modelsMatch("text-embedding-3", "text-embedding-3small")).toBe(false);
    expect(modelsMatch("text-embedding-3-small", "")).toBe(false);
    expect(modelsMatch("text-embedding-3-small", "some-other-embedding-model")).toBe(false);
  });
});

describe("OpenAIEmbedder: error mapping", () => {
  it("429 -> EMBEDDING_RATE_LIMITED (with retry-after in the message)", async () => {
    fake.mode("429");
    const err = await taskError(embedder().embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_RATE_LIMITED");
    expect(err.message).toMatch(/retry-after 1 s/);
    expect(fake.requests).toBe(1); // the SDK did not retry
  });

  it.each(["500", "503"] as const)("%s -> EMBEDDING_PROVIDER_UNAVAILABLE, no SDK retry", async (m) => {
    fake.mode(m);
    const err = await taskError(embedder().embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
    expect(err.message).toContain(m);
    expect(fake.requests).toBe(1);
  });

  it("slow answer beyond the timeout -> EMBEDDING_TIMEOUT", async () => {
    fake.mode("slow", { delayMs: 3000 });
    const t0 = Date.now();
    const err = await taskError(embedder({ timeoutMs: 300 }).embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_TIMEOUT");
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("body stalling after the headers -> EMBEDDING_TIMEOUT (deadline covers the body)", async () => {
    fake.mode("slow-body", { delayMs: 3000 });
    const t0 = Date.now();
    const err = await taskError(embedder({ timeoutMs: 300 }).embed(["a", "b"], live()));
    expect(err.code).toBe("EMBEDDING_TIMEOUT");
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("slow but within the timeout succeeds", async () => {
    fake.mode("slow", { delayMs: 100 });
    expect(await embedder({ timeoutMs: 2000 }).embed(["a"], live())).toHaveLength(1);
  });

  it("connection refused -> EMBEDDING_PROVIDER_UNAVAILABLE", async () => {
    const url = await closedPortUrl();
    const err = await taskError(embedder({ baseURL: url }).embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
    expect(err.message).toMatch(/ECONNREFUSED|connection/i);
    noKey(err);
  });

  it("connection reset -> EMBEDDING_PROVIDER_UNAVAILABLE", async () => {
    fake.mode("reset");
    const err = await taskError(embedder().embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
  });

  it("DNS failure -> EMBEDDING_PROVIDER_UNAVAILABLE", async () => {
    const err = await taskError(embedder({ baseURL: "http://no-such-host.invalid/v1" }).embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
  });

  it.each([
    ["wrong-count", /asked for 3 embeddings, got 2/],
    ["wrong-dimension", /65 dimensions, expected 64/],
    ["wrong-index", /duplicate index|index/],
    ["wrong-model", /model mismatch/],
    ["bad-json", /JSON/],
  ] as const)("%s -> EMBEDDING_INVALID_RESPONSE", async (m, msg) => {
    fake.mode(m);
    const err = await taskError(embedder().embed(["a", "b", "c"], live()));
    expect(err.code).toBe("EMBEDDING_INVALID_RESPONSE");
    expect(err.message).toMatch(msg);
  });

  it("wrong-count / wrong-index with a single input -> EMBEDDING_INVALID_RESPONSE", async () => {
    fake.mode("wrong-count", { times: 1 });
    expect((await taskError(embedder().embed(["a"], live()))).code).toBe("EMBEDDING_INVALID_RESPONSE");
    fake.mode("wrong-index", { times: 1 });
    const err = await taskError(embedder().embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_INVALID_RESPONSE");
    expect(err.message).toMatch(/index 1/);
    // Back to ok after `times`.
    expect(await embedder().embed(["a"], live())).toHaveLength(1);
  });

  it("400 about dimensions/model -> EMBEDDING_INVALID_RESPONSE", async () => {
    fake.mode("400-dimensions");
    const err = await taskError(embedder().embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_INVALID_RESPONSE");
    expect(err.message).toMatch(/dimensions/);
  });

  it("404 model not found -> EMBEDDING_INVALID_RESPONSE; 404 wrong base URL -> EMBEDDING_PROVIDER_UNAVAILABLE", async () => {
    fake.mode("404-model");
    const err = await taskError(embedder().embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_INVALID_RESPONSE");
    expect(err.message).toMatch(/does not exist/);
    fake.mode("ok");
    const wrongUrl = await taskError(embedder({ baseURL: fake.url.replace(/\/v1$/, "/nope") }).embed(["a"], live()));
    expect(wrongUrl.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
    expect(wrongUrl.message).toMatch(/OPENAI_BASE_URL/);
  });

  it("other 400 -> EMBEDDING_INVALID_RESPONSE (not retryable)", async () => {
    fake.mode("400-input");
    const err = await taskError(embedder().embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_INVALID_RESPONSE");
    expect(err.message).toMatch(/rejected the request/);
  });

  it("401 (wrong key) -> EMBEDDING_PROVIDER_UNAVAILABLE and the key never appears in the message", async () => {
    const wrong = "sk-wrong-ABCDEFGHIJKLMNOP";
    const err = await taskError(embedder({ apiKey: wrong }).embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
    expect(err.message).toMatch(/OPENAI_API_KEY/);
    expect(fake.authHeaders[0]).toBe(`Bearer ${wrong}`); // the server did echo it back...
    expect(err.message).not.toContain(wrong); // ...but we scrubbed it
    expect(err.message).not.toContain("ABCDEFGHIJKLMNOP");
  });

  it("a key that redact() would not recognise is still scrubbed", async () => {
    const odd = "plainkey42xyz";
    const err = await taskError(embedder({ apiKey: odd }).embed(["a"], live()));
    expect(err.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
    expect(err.message).not.toContain(odd);
  });

  it("the API key never appears in any error message", async () => {
    const modes = [
      "429",
      "500",
      "503",
      "reset",
      "wrong-count",
      "wrong-dimension",
      "wrong-index",
      "wrong-model",
      "bad-json",
      "400-dimensions",
      "400-input",
      "404-model",
    ] as const;
    for (const m of modes) {
      fake.mode(m);
      const err = await taskError(embedder({ circuit: { failures: 1000 } }).embed(["a", "b"], live()));
      noKey(err);
    }
    fake.mode("slow", { delayMs: 2000 });
    noKey(await taskError(embedder({ timeoutMs: 200 }).embed(["a"], live())));
  });
});

describe("OpenAIEmbedder: abort", () => {
  it("rethrows the caller's abort reason unchanged (in flight)", async () => {
    fake.mode("slow", { delayMs: 3000 });
    const ac = new AbortController();
    const reason = new Error("lease lost");
    setTimeout(() => ac.abort(reason), 100);
    const t0 = Date.now();
    await expect(embedder({ timeoutMs: 5000 }).embed(["a"], ac.signal)).rejects.toBe(reason);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("rethrows the reason when aborted while the body is being read", async () => {
    fake.mode("slow-body", { delayMs: 3000 });
    const ac = new AbortController();
    const reason = { kind: "lease-lost" };
    setTimeout(() => ac.abort(reason), 150);
    await expect(embedder({ timeoutMs: 5000 }).embed(["a"], ac.signal)).rejects.toBe(reason);
  });

  it("already-aborted signal: rethrows without contacting the server", async () => {
    const ac = new AbortController();
    const reason = new Error("gone");
    ac.abort(reason);
    await expect(embedder().embed(["a"], ac.signal)).rejects.toBe(reason);
    expect(fake.requests).toBe(0);
  });

  it("aborts do not count toward the circuit breaker", async () => {
    fake.mode("slow", { delayMs: 2000 });
    const e = embedder({ circuit: { failures: 1, openMs: 60_000 } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("stop")), 50);
    await expect(e.embed(["a"], ac.signal)).rejects.toThrow("stop");
    fake.mode("ok");
    expect(await e.embed(["a"], live())).toHaveLength(1);
  });
});

describe("OpenAIEmbedder: circuit breaker", () => {
  it("opens after N consecutive failures, fails fast without contacting the server, then half-opens", async () => {
    const e = embedder({ circuit: { failures: 3, openMs: 400 } });
    fake.mode("503");
    expect(e.unavailableForMs()).toBe(0);
    for (let i = 0; i < 3; i++)
      expect((await taskError(e.embed(["a"], live()))).code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
    expect(fake.requests).toBe(3);
    // The worker reads this before claiming: no task is claimed into an open circuit.
    expect(e.unavailableForMs()).toBeGreaterThan(300);

    fake.mode("ok");
    const open = await taskError(e.embed(["a"], live()));
    expect(open.code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
    expect(open.message).toMatch(/circuit open/);
    expect(fake.requests).toBe(3); // no request went out

    await new Promise((r) => setTimeout(r, 450));
    expect(e.unavailableForMs()).toBe(0); // half-open: a trial may go
    expect(await e.embed(["a"], live())).toHaveLength(1); // trial succeeds -> closed
    expect(fake.requests).toBe(4);
    expect(await e.embed(["b"], live())).toHaveLength(1);
    expect(fake.requests).toBe(5);
  });

  it("timeouts count too; a failed half-open trial re-opens at once", async () => {
    const e = embedder({ timeoutMs: 150, circuit: { failures: 2, openMs: 300 } });
    fake.mode("slow", { delayMs: 1000 });
    expect((await taskError(e.embed(["a"], live()))).code).toBe("EMBEDDING_TIMEOUT");
    expect((await taskError(e.embed(["a"], live()))).code).toBe("EMBEDDING_TIMEOUT");
    expect((await taskError(e.embed(["a"], live()))).message).toMatch(/circuit open/);
    expect(fake.requests).toBe(2);

    await new Promise((r) => setTimeout(r, 350));
    fake.mode("500");
    expect((await taskError(e.embed(["a"], live()))).message).not.toMatch(/circuit open/); // the trial
    expect(fake.requests).toBe(3);
    expect((await taskError(e.embed(["a"], live()))).message).toMatch(/circuit open/); // re-opened after one failure
    expect(fake.requests).toBe(3);
  });

  it("half-open admits exactly one trial call", async () => {
    const e = embedder({ circuit: { failures: 1, openMs: 200 } });
    fake.mode("500", { times: 1 });
    await taskError(e.embed(["a"], live()));
    await new Promise((r) => setTimeout(r, 250));
    fake.mode("slow", { delayMs: 200 });
    const trial = e.embed(["a"], live());
    const second = await taskError(e.embed(["b"], live()));
    expect(second.message).toMatch(/circuit open/);
    expect(await trial).toHaveLength(1);
    fake.mode("ok");
    expect(await e.embed(["c"], live())).toHaveLength(1);
    expect(fake.requests).toBe(3);
  });

  it("a non-counting answer (429, invalid response) resets the consecutive count", async () => {
    const e = embedder({ circuit: { failures: 2, openMs: 60_000 } });
    fake.mode("503", { times: 1 });
    await taskError(e.embed(["a"], live()));
    fake.mode("429", { times: 1 });
    expect((await taskError(e.embed(["a"], live()))).code).toBe("EMBEDDING_RATE_LIMITED");
    fake.mode("503", { times: 1 });
    await taskError(e.embed(["a"], live()));
    // Not open: only one consecutive failure since the 429.
    expect(await e.embed(["a"], live())).toHaveLength(1);
  });

  it("circuit state is per instance", async () => {
    const a = embedder({ circuit: { failures: 1, openMs: 60_000 } });
    fake.mode("500", { times: 1 });
    await taskError(a.embed(["x"], live()));
    expect((await taskError(a.embed(["x"], live()))).message).toMatch(/circuit open/);
    expect(await embedder().embed(["x"], live())).toHaveLength(1);
  });
});

describe("createEmbedder", () => {
  it("local stays the LocalEmbedder", () => {
    const e = createEmbedder(loadConfig({}));
    expect(e).toBeInstanceOf(LocalEmbedder);
    expect(e.dimensions).toBe(384);
  });

  it("openai without OPENAI_API_KEY is a clear configuration error", () => {
    expect(() => createEmbedder(loadConfig({ EMBEDDING_PROVIDER: "openai" }))).toThrow(/OPENAI_API_KEY/);
    expect(() => createEmbedder(loadConfig({ EMBEDDING_PROVIDER: "openai", OPENAI_API_KEY: "" }))).toThrow(
      /OPENAI_API_KEY/,
    );
  });

  it("openai defaults: text-embedding-3-small, 1536 dimensions", () => {
    const e = createEmbedder(loadConfig({ EMBEDDING_PROVIDER: "openai", OPENAI_API_KEY: KEY }));
    expect(e).toBeInstanceOf(OpenAIEmbedder);
    expect(e.model).toBe("text-embedding-3-small");
    expect(e.dimensions).toBe(1536);
  });

  it("openai honours EMBEDDING_MODEL, EMBEDDING_DIMENSIONS, OPENAI_BASE_URL, EMBEDDING_TIMEOUT_MS", async () => {
    const e = createEmbedder(
      loadConfig({
        EMBEDDING_PROVIDER: "openai",
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: fake.url,
        EMBEDDING_MODEL: "text-embedding-3-large",
        EMBEDDING_DIMENSIONS: "256",
        EMBEDDING_TIMEOUT_MS: "200",
      }),
    );
    expect(e.model).toBe("text-embedding-3-large");
    expect(e.dimensions).toBe(256);
    const out = await e.embed(["hello", "world"], live());
    expect(out.map((v) => v.length)).toEqual([256, 256]);
    expect(fake.bodies[0]).toMatchObject({ model: "text-embedding-3-large", dimensions: 256 });
    fake.mode("slow", { delayMs: 2000 });
    expect((await taskError(e.embed(["x"], live()))).code).toBe("EMBEDDING_TIMEOUT");
  });

  it("the constructor rejects nonsense options", () => {
    expect(() => new OpenAIEmbedder({ apiKey: "", model: MODEL, dimensions: 8, timeoutMs: 100 })).toThrow(/apiKey/);
    expect(() => new OpenAIEmbedder({ apiKey: KEY, model: MODEL, dimensions: 0, timeoutMs: 100 })).toThrow(
      /dimensions/,
    );
  });
});
