import { describe, expect, it } from "vitest";
import { decide, DEFAULT_RETRY } from "../../lib/queue/retry-policy";
import { classify, TaskError } from "../../lib/queue/errors";

// A provider's Retry-After is a floor for the retry delay, never a reason to retry or not.
const mid = () => 0.5; // no jitter: backoff = base·2^(attempt-1)

describe("retry policy with Retry-After", () => {
  it("waits max(backoff, Retry-After)", () => {
    // attempt 1: backoff 2 s; the provider asks for 10 s.
    expect(decide("EMBEDDING_RATE_LIMITED", 1, 8, DEFAULT_RETRY, mid, 10)).toEqual({
      status: "RETRY_WAIT",
      delaySeconds: 10,
    });
    // attempt 5: backoff 32 s is already longer than the 10 s asked for.
    expect(decide("EMBEDDING_RATE_LIMITED", 5, 8, DEFAULT_RETRY, mid, 10)).toEqual({
      status: "RETRY_WAIT",
      delaySeconds: 32,
    });
    // Fractions (retry-after-ms) are kept, not rounded away.
    expect(
      decide("EMBEDDING_RATE_LIMITED", 1, 8, { baseSeconds: 0.1, maxSeconds: 300, jitter: 0 }, mid, 1.25).delaySeconds,
    ).toBe(1.25);
  });

  it("caps Retry-After at RETRY_MAX_SECONDS", () => {
    expect(decide("EMBEDDING_RATE_LIMITED", 1, 8, DEFAULT_RETRY, mid, 86_400)).toEqual({
      status: "RETRY_WAIT",
      delaySeconds: 300,
    });
    expect(
      decide("EMBEDDING_RATE_LIMITED", 1, 8, { baseSeconds: 1, maxSeconds: 5, jitter: 0 }, mid, 60).delaySeconds,
    ).toBe(5);
  });

  it("ignores absent, zero, negative and non-finite values", () => {
    for (const ra of [undefined, 0, -3, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(decide("EMBEDDING_RATE_LIMITED", 1, 8, DEFAULT_RETRY, mid, ra)).toEqual({
        status: "RETRY_WAIT",
        delaySeconds: 2,
      });
    }
  });

  it("never revives a task: exhausted attempts and non-retryable codes stay DEAD", () => {
    expect(decide("EMBEDDING_RATE_LIMITED", 8, 8, DEFAULT_RETRY, mid, 5)).toEqual({ status: "DEAD", delaySeconds: 0 });
    expect(decide("EMBEDDING_INVALID_RESPONSE", 1, 8, DEFAULT_RETRY, mid, 5)).toEqual({
      status: "DEAD",
      delaySeconds: 0,
    });
  });

  it("classify() carries retryAfterSeconds from a TaskError, and only from one", () => {
    expect(classify(new TaskError("EMBEDDING_RATE_LIMITED", "slow down", { retryAfterSeconds: 7 }))).toEqual({
      code: "EMBEDDING_RATE_LIMITED",
      message: "slow down",
      retryAfterSeconds: 7,
    });
    expect(classify(new TaskError("EMBEDDING_RATE_LIMITED", "slow down"))).toEqual({
      code: "EMBEDDING_RATE_LIMITED",
      message: "slow down",
    });
    expect(new TaskError("EMBEDDING_RATE_LIMITED", "x", { retryAfterSeconds: -1 }).retryAfterSeconds).toBeUndefined();
    expect(classify(Object.assign(new Error("boom"), { retryAfterSeconds: 9 })).retryAfterSeconds).toBeUndefined();
  });
});
