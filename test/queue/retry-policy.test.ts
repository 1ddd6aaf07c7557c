import { describe, expect, it } from "vitest";
import { backoffSeconds, decide, DEFAULT_RETRY } from "../../lib/queue/retry-policy";
import { ERROR_CODES, ERROR_CODE_LIST } from "../../lib/domain/constants";

describe("retry policy", () => {
  it("backs off exponentially from the base, capped, within ±20 % jitter", () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const raw = Math.min(2 * 2 ** (attempt - 1), 300);
      expect(backoffSeconds(attempt, DEFAULT_RETRY, () => 0)).toBeCloseTo(raw * 0.8, 6);
      expect(backoffSeconds(attempt, DEFAULT_RETRY, () => 0.5)).toBeCloseTo(raw, 6);
      expect(backoffSeconds(attempt, DEFAULT_RETRY, () => 0.999999)).toBeCloseTo(raw * 1.2, 3);
    }
  });

  it("decides by code: non-retryable codes die at once, retryable ones wait until attempts run out", () => {
    for (const code of ERROR_CODE_LIST) {
      const d = decide(code, 1, 8);
      expect(d.status).toBe(ERROR_CODES[code].retryable ? "RETRY_WAIT" : "DEAD");
    }
    expect(decide("EMBEDDING_TIMEOUT", 7, 8).status).toBe("RETRY_WAIT");
    expect(decide("EMBEDDING_TIMEOUT", 8, 8)).toEqual({ status: "DEAD", delaySeconds: 0 });
    expect(decide("SOMETHING_UNKNOWN", 1, 8).status).toBe("DEAD");
  });
});
