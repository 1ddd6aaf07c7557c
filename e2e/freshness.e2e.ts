import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, switchTheme, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion, waitSearchable } from "./support/api";

// The freshness SLO as people read and set it (docs/operations.md#freshness-slo): the Overview's card,
// the tenant's Freshness page (reached from the Tenants page) with the figures and the chart of a
// tenant that just published, and an admin sets the tenant's objective from the keyboard alone: a value out of range
// is refused on its field (nothing saved), a good one is saved, and the defaults come back.

const TENANT = uniqueKey("e2e-slo")
  .replace(/[^a-z0-9-]/g, "")
  .slice(0, 40);

async function expectAccessible(page: Page, name: string): Promise<void> {
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  for (const scheme of ["light", "dark"] as const) {
    await switchTheme(page, scheme);
    const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    const bad = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((x) => x.target.join(" ")).join(" | ")}`);
    expect(bad, `axe on ${name} (${scheme})`).toEqual([]);
  }
  await switchTheme(page, "light");
}

test("a tenant's freshness: on the overview, its own page with the chart, and its objective set from the keyboard", async ({
  signedIn: page,
}) => {
  test.setTimeout(240_000);
  const key = uniqueKey("e2e-slo-doc");
  const published = await publishVersion(TENANT, key, {
    title: "Fresh notes",
    contentType: "text/plain",
    content: "Albatrosses measure the tide before lunch.",
  });
  await waitSearchable(TENANT, key, published.versionNumber);

  await test.step("the overview's card, worst tenants first; the list answers the tenant's compliance", async () => {
    await page.goto("/overview");
    await expect(page.getByTestId("overview-slo-table")).toBeVisible({ timeout: 40_000 });
    // The card shows the eight tenants with the least budget left, and other specs' tenants may be
    // worse than this one: the list itself is checked through the API.
    const list = await apiClient().GET("/api/v1/slo");
    const mine = list.data?.items.find((i) => i.tenant === TENANT);
    expect(mine).toMatchObject({ good: 1, bad: 0, compliance: 1, budgetRemaining: 1 });
    await expectAccessible(page, "overview with the freshness card");
  });

  await test.step("the tenant's page, reached from the Tenants page: figures, the daily chart and its table", async () => {
    await page.goto("/tenants");
    await page.getByRole("link", { name: `Freshness of ${TENANT}` }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Freshness SLO" })).toBeVisible();
    await expect(page.getByTestId("freshness-compliance-value")).toHaveText("100 %");
    await expect(page.getByTestId("freshness-budget-value")).toHaveText("100 %");
    await expect(page.getByTestId("chart-freshness")).toBeVisible();
    const table = page.getByTestId("freshness-daily-table");
    await table.locator("summary").focus();
    await page.keyboard.press("Enter");
    await expect(table.getByRole("row")).toHaveCount(2);
    await expectAccessible(page, "tenant freshness");
  });

  await test.step("an objective out of range is refused on its field, from the keyboard; nothing is saved", async () => {
    const objective = page.getByLabel("Objective (%)");
    await objective.focus();
    await page.keyboard.type("100");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("slo-objective-error")).toContainText("objective must be from 0.5 to 0.9999");
    await expect(objective).toHaveAttribute("aria-invalid", "true");
    await expectAccessible(page, "tenant freshness, objective refused");
    const now = await apiClient().GET("/api/v1/tenants/{tenant}/slo", { params: { path: { tenant: TENANT } } });
    expect(now.data?.custom).toEqual({ objective: false, targetSeconds: false });
  });

  await test.step("a good objective and target are saved, then the defaults come back", async () => {
    await page.getByLabel("Objective (%)").fill("");
    await page.getByLabel("Objective (%)").focus();
    await page.keyboard.type("99.5");
    await page.keyboard.press("Tab");
    await page.keyboard.type("120");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("slo-saved")).toHaveText("Saved: 99.5 % within 2 min.");
    await expect(page.getByTestId("freshness-lead")).toContainText("99.5 % of publishes searchable within 2 min");
    const saved = await apiClient().GET("/api/v1/tenants/{tenant}/slo", { params: { path: { tenant: TENANT } } });
    expect(saved.data).toMatchObject({ objective: 0.995, targetSeconds: 120 });
    await page.getByRole("button", { name: "Use the defaults" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("slo-saved")).toContainText("(the defaults)");
    const back = await apiClient().GET("/api/v1/tenants/{tenant}/slo", { params: { path: { tenant: TENANT } } });
    expect(back.data?.custom).toEqual({ objective: false, targetSeconds: false });
  });
});
