import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { ReadsStatus } from "../../components/overview/ReadsStatus";
import type { Overview } from "../../lib/ui/schemas";

const reads = (r: Partial<NonNullable<Overview["reads"]>>): Overview["reads"] => ({
  configured: true,
  answeredFrom: "replica",
  servingReads: "replica",
  lagSeconds: 0,
  lagBytes: 0,
  maxLagSeconds: 5,
  reason: null,
  ...r,
});
const html = (r: Overview["reads"]) => renderToStaticMarkup(createElement(ReadsStatus, { reads: r }));

describe("where the dashboard's reads come from", () => {
  it("says nothing without a replica", () => {
    expect(html(null)).toBe("");
    expect(html(reads({ configured: false, servingReads: "primary" }))).toBe("");
  });

  it("names the replica and how far behind it is", () => {
    expect(html(reads({}))).toContain("Replica · up to date");
    expect(html(reads({ lagSeconds: 2.4 }))).toContain("Replica · 2.4 s behind");
  });

  it("shows reads on the primary, with the reason, when the replica is too far behind or down", () => {
    const behind = html(
      reads({ servingReads: "primary", lagSeconds: 12, reason: "the replica is more than 5 s behind the primary" }),
    );
    expect(behind).toContain("Primary · replica 12 s behind");
    expect(behind).toContain('title="the replica is more than 5 s behind the primary"');
    expect(behind).toContain("reads-status--primary");
    expect(html(reads({ servingReads: "primary", lagSeconds: null, reason: "the replica did not answer" }))).toContain(
      "Primary · replica lag unknown",
    );
  });
});
