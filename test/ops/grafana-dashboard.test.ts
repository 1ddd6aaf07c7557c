import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import {
  defaultDashboard,
  defaultPanel,
  defaultRowPanel,
  type Dashboard,
  type Panel,
  type RowPanel,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { createTestDb, type TestDb } from "../helpers/db";
import { DASHBOARD_JSON, renderDashboard } from "../../scripts/grafana-dashboard";
import { metricNamesIn, scrapeDashboard, scrapeWorker, seriesNames } from "./exported";

// The checked-in Grafana dashboard is the generator's output, holds together as a dashboard as far
// as the SDK's own types and defaults describe one, and queries only metrics the product exports,
// read from its endpoints (not from a list kept beside the dashboard).
const ROOT = path.resolve(import.meta.dirname, "../..");
const text = readFileSync(path.join(ROOT, DASHBOARD_JSON), "utf8");
const board = JSON.parse(text) as Dashboard;
const panels = (board.panels ?? []) as (Panel | RowPanel)[];
const charts = panels.filter((p): p is Panel => p.type !== "row");
const exprs = charts.flatMap((p) =>
  (p.targets ?? []).map((t) => ({ panel: p.title, expr: (t as { expr?: string }).expr ?? "" })),
);

let t: TestDb;
const TOKEN = "grafana-token-0123456789abcdef";
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

describe("grafana dashboard", () => {
  it("is what `npm run grafana` writes", () => {
    expect(text, "run npm run grafana and commit deploy/grafana/indexwright.json").toBe(renderDashboard());
  });

  it("has every field the SDK's defaults give a dashboard, a panel and a row, of the same type", () => {
    const sameShape = (value: Record<string, unknown>, defaults: Record<string, unknown>, where: string) => {
      for (const [k, v] of Object.entries(defaults)) expect(typeof value[k], `${where}.${k}`).toBe(typeof v);
    };
    sameShape(
      board as unknown as Record<string, unknown>,
      defaultDashboard() as unknown as Record<string, unknown>,
      "dashboard",
    );
    expect(board.schemaVersion).toBe(defaultDashboard().schemaVersion);
    expect(board.uid).toBe("indexwright");
    for (const p of panels)
      sameShape(
        p as unknown as Record<string, unknown>,
        (p.type === "row" ? defaultRowPanel() : defaultPanel()) as unknown as Record<string, unknown>,
        p.title ?? "?",
      );
    expect(new Set(charts.map((p) => p.type))).toEqual(new Set(["stat", "timeseries"]));
  });

  it("lays panels out on Grafana's 24-column grid without overlaps, with unique ids and refIds", () => {
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const boxes = panels.map((p) => ({ title: p.title, ...p.gridPos! }));
    for (const b of boxes) expect(b.x + b.w, b.title).toBeLessThanOrEqual(24);
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect(overlap, `${a.title} / ${b.title}`).toBe(false);
      }
    }
    for (const p of charts) {
      const refIds = (p.targets ?? []).map((x) => (x as { refId?: string }).refId);
      expect(refIds.length, p.title).toBeGreaterThan(0);
      expect(new Set(refIds).size, p.title).toBe(refIds.length);
    }
  });

  it("reads every panel from the Prometheus data source its variable picks", () => {
    const vars = (board.templating.list ?? []).map((v) => ({ name: v.name, type: v.type, query: v.query }));
    expect(vars).toContainEqual({ name: "datasource", type: "datasource", query: "prometheus" });
    for (const p of charts) expect(p.datasource, p.title).toEqual({ type: "prometheus", uid: "${datasource}" });
  });

  it("queries only metrics the dashboard's /api/metrics and a worker's /metrics export", async () => {
    const exported = new Set([...seriesNames(await scrapeDashboard(TOKEN)), ...seriesNames(await scrapeWorker())]);
    expect(exported).toContain("indexwright_worker_tasks_total");
    expect(exprs.length).toBeGreaterThanOrEqual(20);
    for (const { panel, expr } of exprs) {
      const names = metricNamesIn(expr);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      for (const n of names) expect(exported.has(n), `${panel}: ${n}`).toBe(true);
    }
  });

  it("has one file provider with an absolute dashboards path in its provisioning file", () => {
    const prov = parse(readFileSync(path.join(ROOT, "deploy/grafana/provisioning.yml"), "utf8")) as {
      apiVersion: number;
      providers: { type: string; options: { path: string } }[];
    };
    expect(prov.apiVersion).toBe(1);
    expect(prov.providers).toHaveLength(1);
    expect(prov.providers[0].type).toBe("file");
    expect(prov.providers[0].options.path).toMatch(/^\//);
  });
});
