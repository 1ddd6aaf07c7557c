import { describe, expect, it } from "vitest";
import * as sql from "../../lib/webhooks/sql";

// Every statement of the webhook delivery loop rendered with fixed arguments: a SQL change is a snapshot diff.
describe("webhook delivery SQL", () => {
  it("renders every statement", () => {
    const rendered = {
      claimDeliveries: sql.claimDeliveries("worker-a", 4, 10, 40),
      expireExhausted: sql.expireExhausted(10),
      markDelivered: sql.markDelivered("42", "worker-a", 3, 204, 87),
      markFailed: sql.markFailed("42", "worker-a", 3, 10, 37.5, 500, 87, "HTTP 500"),
      pruneEvents: sql.pruneEvents(30, 1000),
    };
    const exported = Object.entries(sql)
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k)
      .sort();
    expect(Object.keys(rendered).sort()).toEqual(exported);
    expect(rendered).toMatchSnapshot();
  });

  it("fences every write a sender makes with its lease attempt", () => {
    for (const s of [sql.markDelivered("1", "w", 2, 200, 1), sql.markFailed("1", "w", 2, 3, 1, null, 1, "x")]) {
      expect(s.text).toContain("status = 'SENDING' AND lease_owner = $2 AND attempts = $3");
      expect(s.values.slice(0, 3)).toEqual(["1", "w", 2]);
    }
  });
});
