import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OpenAIEmbedder, parseRetryAfter } from "../../lib/embedding/openai";
import { TaskError } from "../../lib/queue/errors";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider";

// Retry-After on a 429: parsed from the real SDK error (real HTTP against the fake provider) into
// TaskError.retryAfterSeconds, which the worker hands to the retry policy as a floor.
const KEY = "sk-test-0123456789abcdefSECRET";
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

const embedder = () =>
  new OpenAIEmbedder({
    apiKey: KEY,
    baseURL: fake.url,
    model: "text-embedding-3-small",
    dimensions: 16,
    timeoutMs: 2000,
  });

async function rateLimited(): Promise<TaskError> {
  try {
    await embedder().embed(["a"], new AbortController().signal);
  } catch (err) {
    expect(err).toBeInstanceOf(TaskError);
    expect((err as TaskError).code).toBe("EMBEDDING_RATE_LIMITED");
    return err as TaskError;
  }
  throw new Error("expected a 429, the call succeeded");
}

const headers = (h: Record<string, string>) => new Headers(h);

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");

  it("reads delta-seconds, including fractions", () => {
    expect(parseRetryAfter(headers({ "retry-after": "3" }), now)).toBe(3);
    expect(parseRetryAfter(headers({ "retry-after": " 0 " }), now)).toBe(0);
    expect(parseRetryAfter(headers({ "retry-after": "1.5" }), now)).toBe(1.5);
  });

  it("reads an HTTP date relative to now; a past date means now", () => {
    expect(parseRetryAfter(headers({ "retry-after": "Sun, 01 Mar 2026 12:00:42 GMT" }), now)).toBe(42);
    expect(parseRetryAfter(headers({ "retry-after": "Sun, 01 Mar 2026 11:00:00 GMT" }), now)).toBe(0);
  });

  it("prefers retry-after-ms (milliseconds) over retry-after", () => {
    expect(parseRetryAfter(headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1.5);
    // An unreadable retry-after-ms falls back to retry-after.
    expect(parseRetryAfter(headers({ "retry-after-ms": "soon", "retry-after": "9" }), now)).toBe(9);
  });

  it("ignores what it cannot read instead of guessing", () => {
    for (const v of ["", "-5", "soon", "5s", "1e3", "NaN"])
      expect(parseRetryAfter(headers({ "retry-after": v }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("OpenAIEmbedder: 429 carries Retry-After", () => {
  it("Retry-After: 2 -> retryAfterSeconds 2", async () => {
    fake.mode("429", { retryAfter: "2" });
    const err = await rateLimited();
    expect(err.retryAfterSeconds).toBe(2);
    expect(err.message).toMatch(/retry-after 2 s/);
    expect(fake.requests).toBe(1);
  });

  it("retry-after-ms wins over Retry-After", async () => {
    fake.mode("429", { retryAfter: "30", retryAfterMs: "250" });
    expect((await rateLimited()).retryAfterSeconds).toBe(0.25);
  });

  it("an HTTP-date Retry-After becomes seconds from now", async () => {
    fake.mode("429", { retryAfter: new Date(Date.now() + 20_000).toUTCString() });
    const s = (await rateLimited()).retryAfterSeconds!;
    // toUTCString() drops the milliseconds: 19–20 s ahead.
    expect(s).toBeGreaterThan(18);
    expect(s).toBeLessThanOrEqual(20);
  });

  it("no header -> no retryAfterSeconds (the backoff alone decides)", async () => {
    fake.mode("429", { retryAfter: null });
    expect((await rateLimited()).retryAfterSeconds).toBeUndefined();
  });

  it("only 429s carry it", async () => {
    fake.mode("503");
    try {
      await embedder().embed(["a"], new AbortController().signal);
      throw new Error("expected a failure");
    } catch (err) {
      expect((err as TaskError).code).toBe("EMBEDDING_PROVIDER_UNAVAILABLE");
      expect((err as TaskError).retryAfterSeconds).toBeUndefined();
    }
  });
});
