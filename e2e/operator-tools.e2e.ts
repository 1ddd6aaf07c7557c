import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { unwrap } from "../lib/client";
import { expect, shooter, switchTheme, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion, readDocument } from "./support/api";

// Operator tools, each as a journey with screenshots: an export downloaded and read back, the
// audit log filtered, the overview's time range switched, a document's chunks browsed.

async function publish(tenant: string, key: string, title: string, content: string): Promise<void> {
  await publishVersion(tenant, key, { title, content });
}

async function searchVersion(tenant: string, key: string, version: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const { doc, status } = await readDocument(tenant, key);
        return doc ? `${doc.state}@v${doc.searchVersion}` : `HTTP_${status}`;
      },
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe(`SEARCHABLE@v${version}`);
}

async function bothThemes(page: Page, shot: (name: string) => Promise<void>, name: string): Promise<void> {
  await shot(`${name}.png`);
  await switchTheme(page, "dark");
  await shot(`${name}-dark.png`);
  await switchTheme(page, "light");
}

test("export: the filtered documents list downloads as CSV with the same rows; JSON too", async ({
  signedIn: page,
}) => {
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-exp").slice(0, 60);
  const keys = ["alpha", "beta", "gamma"].map((k) => `${k}-${tenant.slice(-6)}`);

  await test.step("seed three documents in a tenant of their own, one with a formula-like title", async () => {
    await publish(tenant, keys[0], "=cmd|' /C calc'!A0", "# Alpha\n\nFirst.");
    await publish(tenant, keys[1], "Beta notes", "# Beta\n\nSecond.");
    await publish(tenant, keys[2], "Gamma notes", "# Gamma\n\nThird.");
    for (const k of keys) await searchVersion(tenant, k, 1);
  });

  await test.step("filter the list, then download its CSV", async () => {
    await page.goto(`/documents?tenant=${tenant}&q=a`);
    await expect(page.getByTestId("doc-row")).toHaveCount(3);
    await expect(page.getByTestId("export-csv")).toHaveAttribute(
      "href",
      `/api/v1/documents/export?tenant=${tenant}&q=a&format=csv`,
    );
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
    expect(download.suggestedFilename()).toMatch(/^documents-\d{8}T\d{6}Z\.csv$/);
    const path = test.info().outputPath(download.suggestedFilename());
    await download.saveAs(path);
    const text = await readFile(path, "utf8");
    await test.info().attach("export.csv", { path, contentType: "text/csv" });
    const rows = text.trim().split("\r\n");
    expect(rows[0]).toMatch(/^tenant,key,title,state,/);
    expect(
      rows
        .slice(1)
        .map((r) => r.split(",")[1])
        .sort(),
    ).toEqual([...keys].sort());
    expect(text).toContain(`${tenant},${keys[0]},'=cmd|' /C calc'!A0,SEARCHABLE,`);
  });

  await test.step("the JSON export of the same list, opened in the browser", async () => {
    const res = await page.request.get(`/api/v1/documents/export?tenant=${tenant}&q=a&format=json`);
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ kind: "documents", filters: { tenant, q: "a" }, count: 3 });
    // Shown as a page (the API sends it as an attachment), so the screenshot has the file's contents.
    await page.setContent(
      `<main><h1>${body.kind} export</h1><pre style="white-space:pre-wrap;font:13px monospace">${JSON.stringify(body, null, 2).replace(/</g, "&lt;")}</pre></main>`,
    );
    await shot("01-export-json-opened.png");
    await page.goto(`/documents?tenant=${tenant}&q=a`);
    await expect(page.getByTestId("doc-row")).toHaveCount(3);
    await bothThemes(page, shot, "02-documents-with-export");
  });
});

test("audit log: filtered by action, actor and time, and cleared again", async ({ signedIn: page }) => {
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-aud").slice(0, 60);
  const key = `audited-${tenant.slice(-6)}`;

  await test.step("an audited action: a reindex of a fresh document", async () => {
    await publish(tenant, key, "Audited", "# Audited\n\nReindexed by the journey.");
    await searchVersion(tenant, key, 1);
    await unwrap(
      apiClient().POST("/api/v1/tenants/{tenant}/documents/{key}/reindex", { params: { path: { tenant, key } } }),
    );
  });

  await test.step("filter: document reindexes by the bootstrap token in this tenant, in the last hour", async () => {
    await page.goto("/audit");
    await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
    // One filter at a time, each in the URL before the next: a filter change builds on the URL the
    // page last rendered with, so two within one navigation would race.
    await page.getByTestId("audit-filter-action").selectOption("document.reindex");
    await expect(page).toHaveURL(/action=document\.reindex/);
    await page.getByTestId("audit-filter-tenant").selectOption(tenant);
    await expect(page).toHaveURL(new RegExp(`tenant=${tenant}`));
    await page.getByTestId("audit-filter-actor").fill("BOOTSTRAP");
    await expect(page).toHaveURL(/actor=BOOTSTRAP/);
    await page.getByRole("button", { name: "Last hour" }).click();
    await expect(page).toHaveURL(/from=/);
    await expect(page).toHaveURL(/action=document\.reindex/);
    const rows = page.getByTestId("audit-row");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-action", "document.reindex");
    await expect(rows.first()).toContainText(key);
    await bothThemes(page, shot, "03-audit-filtered");
  });

  await test.step("a filter that matches nothing says so; clearing brings every entry back", async () => {
    await page.getByTestId("audit-filter-action").selectOption("task.*");
    await expect(page.getByTestId("empty-state")).toContainText("No audit entries match these filters");
    await shot("04-audit-no-match.png");
    await page.getByTestId("audit-filters-clear").click();
    await expect(page).toHaveURL(/\/audit$/);
    await expect(page.getByTestId("audit-row").first()).toBeVisible();
  });
});

test("overview: the time range switches the throughput chart between 1 h, 24 h and 7 d", async ({ signedIn: page }) => {
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-thr").slice(0, 60);

  await test.step("some finished tasks", async () => {
    for (const k of ["one", "two"])
      await publish(tenant, `${k}-${tenant.slice(-6)}`, `Throughput ${k}`, `# ${k}\n\nCounted.`);
    for (const k of ["one", "two"]) await searchVersion(tenant, `${k}-${tenant.slice(-6)}`, 1);
  });

  await test.step("24 h by default, then 1 h, then 7 d", async () => {
    await page.goto("/overview");
    await expect(page.getByTestId("range-24h")).toHaveAttribute("aria-pressed", "true");
    const chart = page.getByTestId("chart-throughput");
    await expect(chart).not.toHaveAttribute("data-empty", "true");
    await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
    await expect(chart).toContainText(/Last 24 h: \d+ succeeded/);

    await page.getByTestId("range-1h").click();
    await expect(page).toHaveURL(/range=1h/);
    await expect(page.getByTestId("range-1h")).toHaveAttribute("aria-pressed", "true");
    await expect(chart).toContainText(/Last 1 h: \d+ succeeded/);
    await expect(chart).toContainText("averaged over 1 min");
    await bothThemes(page, shot, "05-overview-1h");

    await page.getByTestId("range-7d").click();
    await expect(page).toHaveURL(/range=7d/);
    await expect(chart).toContainText(/Last 7 d: \d+ succeeded/);
    await expect(chart).toContainText("averaged over 2 h");
    await shot("06-overview-7d.png");
  });
});

test("document page: chunks browsed by index version and level, reused or embedded", async ({ signedIn: page }) => {
  const shot = shooter(page);
  const tenant = "e2e";
  const key = uniqueKey("e2e-chunks");
  const v1 =
    "# Field guide\n\n## Herons\n\nHerons stand still in shallow water for a long time.\n\n## Kingfishers\n\nKingfishers dive from a low branch.\n\n## Swifts\n\nSwifts sleep on the wing.\n";
  const v2 = v1.replace("dive from a low branch", "dive from a willow branch");

  await test.step("two versions: the second changes one section", async () => {
    await publish(tenant, key, "Field guide", v1);
    await searchVersion(tenant, key, 1);
    await publish(tenant, key, "Field guide", v2);
    await searchVersion(tenant, key, 2);
  });

  await test.step("open the chunk browser on the served version: one chunk embedded, the rest reused", async () => {
    await page.goto(`/documents/${tenant}/${key}`);
    await expect(page.getByRole("heading", { level: 1, name: "Field guide" })).toBeVisible();
    await page.getByTestId("chunks-toggle").click();
    const chunks = page.getByTestId("chunk");
    await expect(chunks.first()).toBeVisible();
    await expect(page.getByTestId("chunk").filter({ hasText: "willow" })).toHaveAttribute("data-reused", "false");
    await expect(page.getByTestId("chunk").filter({ hasText: "Herons stand still" })).toHaveAttribute(
      "data-reused",
      "true",
    );
    await expect(
      page.getByTestId("chunk").filter({ hasText: "Herons stand still" }).getByTestId("chunk-origin"),
    ).toHaveText("Reused");
    // From the top: a full-page capture of a scrolled page draws the sticky sidebar and top bar mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await bothThemes(page, shot, "07-chunks-served-version");
  });

  await test.step("the first version: everything embedded there", async () => {
    const select = page.getByTestId("chunks-version");
    const v1Option = select.locator("option", { hasText: /^v1 / });
    await select.selectOption((await v1Option.getAttribute("value"))!);
    await expect(page.getByTestId("chunk").filter({ hasText: "low branch" })).toBeVisible();
    await expect(page.locator('[data-testid="chunk"][data-reused="true"]')).toHaveCount(0);
    await page.getByTestId("chunks-level").selectOption("2");
    await expect(page.locator('[data-testid="chunk"]:not([data-level="2"])')).toHaveCount(0);
    await shot("08-chunks-first-version.png");
  });
});
