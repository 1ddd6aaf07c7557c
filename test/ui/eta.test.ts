import { describe, expect, it } from "vitest";
import { etaSeconds } from "../../lib/ui/eta";

describe("progress ETA", () => {
  it("extrapolates the rate seen since the first sample", () => {
    // 12 chunks in 6 s → 2 chunks/s; 48 left → 24 s.
    expect(etaSeconds({ done: 4, at: 1_000 }, 16, 64, 7_000)).toBeCloseTo(24, 6);
  });

  it("has no estimate before anything moved, once done, or after the count went backwards", () => {
    expect(etaSeconds({ done: 4, at: 1_000 }, 4, 64, 9_000)).toBeNull();
    expect(etaSeconds({ done: 4, at: 1_000 }, 64, 64, 9_000)).toBeNull();
    expect(etaSeconds({ done: 30, at: 1_000 }, 2, 64, 9_000)).toBeNull();
    expect(etaSeconds({ done: 0, at: 5_000 }, 3, 64, 5_000)).toBeNull();
  });
});
