import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { createTestDb, type TestDb } from "../helpers/db";
import { metricNamesIn, promtool, scrapeDashboard, scrapeWorker, seriesNames } from "./exported";

// The shipped rules pass Prometheus's own checker and unit tests; each alert is tested both firing
// and quiet, links a runbook section that exists, and reads only metrics the product exports.
const ROOT = path.resolve(import.meta.dirname, "../..");
const RULES = path.join(ROOT, "deploy/prometheus/indexwright.rules.yml");
const TESTS = path.join(ROOT, "deploy/prometheus/tests.yml");

type Rule = { alert?: string; record?: string; expr: string; annotations?: Record<string, string> };
type AlertTest = { alertname: string; exp_alerts: unknown[] };
const groups = (parse(readFileSync(RULES, "utf8")) as { groups: { rules: Rule[] }[] }).groups;
const rules = groups.flatMap((g) => g.rules);
const alerts = rules.filter((r) => r.alert);
const alertTests = (parse(readFileSync(TESTS, "utf8")) as { tests: { alert_rule_test?: AlertTest[] }[] }).tests.flatMap(
  (t) => t.alert_rule_test ?? [],
);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, "")
    .replace(/ /g, "-");

let t: TestDb;
const TOKEN = "rules-token-0123456789abcdef";
beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

describe("prometheus rules", () => {
  it("pass promtool check rules", () => {
    const r = promtool(["check", "rules", RULES]);
    expect(r.output).toContain("SUCCESS");
    expect(r.status, r.output).toBe(0);
  });

  it("pass their promtool unit tests", () => {
    const r = promtool(["test", "rules", TESTS]);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain("SUCCESS");
  });

  it("test every alert both firing and not firing", () => {
    expect(alerts.length).toBeGreaterThanOrEqual(12);
    for (const a of alerts) {
      const mine = alertTests.filter((x) => x.alertname === a.alert);
      expect(
        mine.some((x) => x.exp_alerts.length > 0),
        `${a.alert} fires in a test`,
      ).toBe(true);
      expect(
        mine.some((x) => x.exp_alerts.length === 0),
        `${a.alert} stays quiet in a test`,
      ).toBe(true);
    }
    // A test of an alert that is not in the rules would pass vacuously.
    for (const x of alertTests) expect(alerts.map((a) => a.alert)).toContain(x.alertname);
  });

  it("give every alert a summary, a description and a runbook section in docs/alerts.md", () => {
    const headings = new Set(
      [...readFileSync(path.join(ROOT, "docs/alerts.md"), "utf8").matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])),
    );
    for (const a of alerts) {
      expect(a.annotations?.summary, a.alert).toBeTruthy();
      expect(a.annotations?.description, a.alert).toBeTruthy();
      expect(a.annotations?.runbook_url, a.alert).toBe(`docs/alerts.md#${a.alert!.toLowerCase()}`);
      expect(headings, a.alert).toContain(a.alert!.toLowerCase());
    }
  });

  it("name metrics the way the check below reads them", () => {
    // The reader is a few regular expressions: these pin what it must and must not take for a name.
    expect(metricNamesIn(`max without (instance, condition) (indexwright_leases{condition="expired"}) > 0`)).toEqual([
      "indexwright_leases",
    ]);
    expect(
      metricNamesIn(
        `histogram_quantile(0.95, sum by (le) (rate(a_bucket{le=~"1|2"}[$__rate_interval]))) > 1.5e2 and on (job) b:c:rate5m offset 5m`,
      ),
    ).toEqual(["a_bucket", "b:c:rate5m"]);
    expect(metricNamesIn(`up{job="indexwright-web"} == 0 or absent(up{job="indexwright-web"})`)).toEqual(["up"]);
  });

  it("read only metrics the product exports (or the rules record, or Prometheus's own up)", async () => {
    const exported = new Set([
      ...seriesNames(await scrapeDashboard(TOKEN)),
      ...seriesNames(await scrapeWorker()),
      "up",
    ]);
    const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
    expect(exported).toContain("indexwright_publish_to_searchable_seconds_bucket");
    for (const r of rules) {
      const names = metricNamesIn(r.expr);
      expect(names.length, r.expr).toBeGreaterThan(0);
      for (const n of names) expect(exported.has(n) || recorded.has(n), `${r.alert ?? r.record}: ${n}`).toBe(true);
    }
  });
});
