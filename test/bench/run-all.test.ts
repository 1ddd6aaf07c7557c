import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { notesOf, previousSections, render, type Outcome } from "../../bench/run-all";

describe("a partial bench run", () => {
  it("carries the sections it did not run over verbatim from the RESULTS.md it replaces", () => {
    const old = [
      "# Benchmark results",
      "",
      "| bench | result | measured | seconds |",
      "|---|---|---|---|",
      "| search | ok | 2026-11-30 12:46 UTC | 1710 |",
      "| dashboard | ok | 2026-11-30 13:20 UTC | 600 |",
      "",
      "## search",
      "",
      "| figure | value |",
      "| p95Ms | 210 |",
      "",
      "## dashboard",
      "",
      "Method: HTTP.",
      "",
      "| worstP95Ms | 96 |",
      "",
    ].join("\n");
    const kept = previousSections(old);
    expect([...kept.keys()]).toEqual(["search", "dashboard"]);
    expect(kept.get("dashboard")).toEqual({
      lines: ["Method: HTTP.", "", "| worstP95Ms | 96 |"],
      measured: "2026-11-30 13:20 UTC",
    });

    const fresh: Outcome = {
      name: "search",
      ok: true,
      seconds: 900,
      exitCode: 0,
      result: { date: "2026-11-30T17:00:00Z", p95Ms: 12 },
      problem: null,
      lastLineJson: true,
    };
    const carried: Outcome = {
      name: "dashboard",
      ok: true,
      seconds: 0,
      exitCode: 0,
      result: null,
      problem: "kept from the previous RESULTS.md",
      lastLineJson: true,
      kept: kept.get("dashboard"),
    };
    const md = render([fresh, carried], new Date("2026-11-30T17:20:00Z"));
    expect(md).toContain("| dashboard | ok (kept from the previous RESULTS.md) | 2026-11-30 13:20 UTC |  |");
    expect(md).toContain("## dashboard\n\nMethod: HTTP.\n\n| worstP95Ms | 96 |");
    expect(md).toContain("| p95Ms | 12 |");
  });

  it("reads the committed RESULTS.md", () => {
    const kept = previousSections(readFileSync("bench/RESULTS.md", "utf8"));
    expect(kept.get("dashboard")?.lines.join("\n")).toMatch(/routesMs/);
  });

  it("carries the hand-written notes over unchanged, and keeps them out of the last bench's section", () => {
    const old = [
      "# Benchmark results",
      "",
      "## dashboard",
      "",
      "| worstP95Ms | 96 |",
      "",
      "# Measurement notes",
      "",
      "## Notes: queue",
      "",
      "Quiet machine.",
    ].join("\n");
    expect(previousSections(old).get("dashboard")?.lines).toEqual(["| worstP95Ms | 96 |"]);
    const md = render([], new Date("2026-11-30T17:20:00Z"), notesOf(old));
    expect(md.endsWith("# Measurement notes\n\n## Notes: queue\n\nQuiet machine.\n")).toBe(true);
  });
});
