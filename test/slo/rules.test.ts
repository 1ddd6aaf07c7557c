import { describe, expect, it } from "vitest";
import { budgetRemaining, compliance } from "../../lib/slo/limits";
import { sloProblems } from "../../lib/slo/schemas";
import { budgetTone, describeBudget, formatSloPercent } from "../../lib/ui/slo";

// The SLO's arithmetic, its problem codes and the dashboard's wording, by hand.

describe("freshness SLO arithmetic", () => {
  it("budget left is 1 - (bad/total)/(1 - objective), unclamped, null with nothing decided", () => {
    expect(budgetRemaining(99, 1, 0.99)).toBeCloseTo(0, 12);
    expect(budgetRemaining(199, 1, 0.99)).toBeCloseTo(0.5, 12);
    expect(budgetRemaining(8, 2, 0.9)).toBeCloseTo(-1, 12);
    expect(budgetRemaining(0, 0, 0.99)).toBeNull();
    expect(compliance(3, 1)).toBe(0.75);
    expect(compliance(0, 0)).toBeNull();
  });

  it("reports every problem of a setting with its code", () => {
    expect(sloProblems({}).map((p) => p.code)).toEqual(["NOTHING_TO_SET"]);
    expect(sloProblems({ objective: null, targetSeconds: null })).toEqual([]);
    expect(sloProblems({ objective: 0.5, targetSeconds: 10 })).toEqual([]);
    expect(sloProblems({ objective: 0.9999, targetSeconds: 86_400 })).toEqual([]);
    expect(sloProblems({ objective: 0.49999, targetSeconds: 9 }).map((p) => [p.field, p.code])).toEqual([
      ["objective", "OBJECTIVE_OUT_OF_RANGE"],
      ["targetSeconds", "TARGET_OUT_OF_RANGE"],
    ]);
    expect(sloProblems({ targetSeconds: 30.5 }).map((p) => p.code)).toEqual(["TARGET_NOT_WHOLE"]);
  });

  it("words the figures with the precision an objective needs", () => {
    expect(formatSloPercent(0.995)).toBe("99.5 %");
    expect(formatSloPercent(0.99)).toBe("99 %");
    expect(formatSloPercent(0.99951)).toBe("99.95 %");
    expect(formatSloPercent(1)).toBe("100 %");
    expect(formatSloPercent(0)).toBe("0 %");
    expect(formatSloPercent(null)).toBe("—");
    expect(describeBudget(0.25)).toBe("25 % left");
    expect(describeBudget(-1.5)).toBe("overspent by 150 %");
    expect(describeBudget(null)).toBe("no publish decided yet");
    expect([budgetTone(0.5), budgetTone(0.1), budgetTone(0), budgetTone(null)]).toEqual([
      "ok",
      "warn",
      "danger",
      "neutral",
    ]);
  });
});
