import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, shooter, switchTheme, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion, waitSearchable } from "./support/api";

// An index-space migration as an operator runs it from the dashboard (docs/decisions/039-index-spaces.md):
// a tenant's documents are built into a second space beside the one search reads, the switch is
// refused (with the counts) while the build waits, the progress bar reaches 100 % and READY once the
// worker's maintenance has built the space's HNSW index, Switch moves search (the search page names
// the space that answered) and Switch back returns at once. Every dialog is confirmed by keyboard.

/** The second space: the built-in local embedder at 256 dimensions (no provider, no key). */
const SPACE = "local-256";

/** axe (WCAG 2.1 A/AA) in the light and the dark theme: no serious or critical finding (as e2e/accessibility.e2e.ts). */
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

/** Registers SPACE unless an earlier test of this run did; true when this test created it. */
async function ensureSpace(): Promise<boolean> {
  const { response, error } = await apiClient().POST("/api/v1/admin/embedding-spaces", {
    body: { name: SPACE, provider: "local", dimensions: 256 },
  });
  if (response.status === 201) return true;
  expect(response.status, JSON.stringify(error)).toBe(409);
  expect((error as { error?: { code?: string } })?.error?.code).toBe("SPACE_NAME_TAKEN");
  return false;
}

async function pauseTenant(tenant: string): Promise<string> {
  const { data, response } = await apiClient().POST("/api/v1/pauses", {
    body: { tenant, reason: "e2e: hold the migration build to see the switch refused" },
  });
  expect(response.status, JSON.stringify(data)).toBe(201);
  return String((data as { id: string | number }).id);
}

async function resumeTenant(tenant: string): Promise<void> {
  const client = apiClient();
  const { data } = await client.GET("/api/v1/pauses");
  for (const p of data?.items ?? [])
    if (p.tenant === tenant) await client.DELETE("/api/v1/pauses/{id}", { params: { path: { id: p.id } } });
}

/** Cleanup: no migration of the tenant left open, whatever step failed. */
async function closeMigrations(tenant: string): Promise<void> {
  const client = apiClient();
  const { data } = await client.GET("/api/v1/tenants/{tenant}/migrations", { params: { path: { tenant } } });
  for (const m of data?.items ?? []) {
    const path = { params: { path: { tenant, id: m.id } }, body: { reason: "e2e cleanup" } };
    if (m.state === "SWITCHED") await client.POST("/api/v1/tenants/{tenant}/migrations/{id}/switch-back", path);
    if (m.state === "BUILDING" || m.state === "READY")
      await client.POST("/api/v1/tenants/{tenant}/migrations/{id}/abort", path);
  }
}

/** Searches the tenant from the Search page and expects the answer to name `space` as the space that answered. */
async function expectSearchSpace(page: Page, tenant: string, query: string, key: string, space: string) {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search", exact: true }).click();
  await page.waitForURL("**/search**");
  await page.getByLabel("Tenant").fill(tenant);
  await page.getByLabel("Query").fill(query);
  await page.getByTestId("search-submit").click();
  const first = page.getByTestId("search-hit").first();
  await expect(first).toBeVisible({ timeout: 20_000 });
  await expect(first).toHaveAttribute("data-document-key", key);
  await expect(page.getByTestId("search-space")).toHaveAttribute("data-space", space);
}

test("migrate a tenant to a second index space, switch, search in it, switch back", async ({ signedIn: page }) => {
  test.setTimeout(300_000);
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-mig").slice(0, 60);
  const nonce = tenant.slice(-6);
  const docs = [
    { key: `returns-${nonce}`, text: `Walruses notarise saffron umbrellas every equinox ${nonce}.` },
    { key: `shipping-${nonce}`, text: `Ferrets calibrate pewter kettles beneath the aqueduct ${nonce}.` },
    { key: `warranty-${nonce}`, text: `Ibises catalogue amber pendulums during the regatta ${nonce}.` },
  ];
  let created = false;
  let from = "";

  try {
    await test.step("seed: three searchable documents in a fresh tenant, and the space local-256", async () => {
      for (const d of docs) await publishVersion(tenant, d.key, { title: d.key, content: `# ${d.key}\n\n${d.text}\n` });
      for (const d of docs) await waitSearchable(tenant, d.key, 1);
      created = await ensureSpace();
    });

    await test.step("the tenant list links to the tenant's migrations: never migrated", async () => {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tenants", exact: true }).click();
      await page.waitForURL(/\/tenants$/);
      const row = page.locator(`[data-testid="tenant-row"][data-tenant="${tenant}"]`);
      await expect(row).toContainText("never migrated");
      await expectAccessible(page, "tenants");
      await row.getByTestId("tenant-migrations-link").click();
      await page.waitForURL(`**/tenants/${tenant}/migrations`);
      await expect(page.getByRole("heading", { level: 1, name: "Index space migrations" })).toBeVisible();
      await expect(page.getByTestId("empty-state")).toContainText("This tenant has never changed index space");
      from = (await page.getByTestId("tenant-active-space").textContent())?.trim() ?? "";
      expect(from).not.toBe("");
      expect(from).not.toBe(SPACE);
      await expectAccessible(page, "migrations, never migrated");
      await shot("m1-never-migrated.png");
    });

    await test.step("start a migration to local-256 (the build held by a pause), by keyboard", async () => {
      await pauseTenant(tenant);
      await page.getByTestId("migration-start-open").click();
      const dialog = page.getByRole("dialog", { name: `Start a migration of ${tenant}` });
      await expect(dialog).toBeVisible();
      await dialog.getByTestId("migration-space").selectOption(SPACE);
      await expect(dialog.getByTestId("action-effect")).toContainText(`Search keeps reading ${from}`);
      await dialog.getByTestId("action-reason").fill("Try the local 256-dimension space");
      await expectAccessible(page, "start-migration dialog");
      await shot("m2-start-dialog.png");
      await dialog.getByTestId("migration-start-confirm").focus();
      await page.keyboard.press("Enter");
      await expect(dialog).toBeHidden();
      const panel = page.getByTestId("migration-panel");
      await expect(panel.getByTestId("migration-state")).toHaveAttribute("data-state", "BUILDING");
      await expect(panel.getByTestId("migration-from")).toHaveAttribute("data-space", from);
      await expect(panel.getByTestId("migration-to")).toHaveAttribute("data-space", SPACE);
      const bar = panel.getByRole("progressbar", { name: `Documents built in ${SPACE}` });
      await expect(bar).toHaveAttribute("aria-valuemax", "3");
      await expect(bar).toHaveAttribute("aria-valuenow", "0");
      await expect(panel.getByTestId("migration-refresh")).toContainText("refreshing every 2 s");
      await expect(page.getByTestId("migration-start-open")).toBeDisabled();
    });

    await test.step("Switch is refused while nothing is built: the dialog shows the counts", async () => {
      await page.getByTestId("migration-switch").click();
      const dialog = page.getByRole("dialog", { name: `Switch ${tenant} to ${SPACE}` });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByTestId("migration-effect")).toContainText(
        `From the next query on, search in tenant ${tenant} reads ${SPACE}. The previous space ${from} keeps following every publish`,
      );
      await expect(dialog.getByTestId("switch-not-ready-warning")).toBeVisible();
      await dialog.getByTestId("migration-switch-confirm").click();
      await expect(dialog.getByTestId("action-error")).toContainText("MIGRATION_NOT_READY");
      await expect(dialog.getByTestId("not-ready-built")).toHaveText("0 of 3 documents built");
      await expectAccessible(page, "switch dialog, refused");
      await shot("m3-switch-refused.png");
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      // Focus went back to the button that opened the dialog.
      await expect(page.getByTestId("migration-switch")).toBeFocused();
    });

    await test.step("resume: the bar reaches 100 % and, once the index is built, READY", async () => {
      await resumeTenant(tenant);
      const panel = page.getByTestId("migration-panel");
      const bar = panel.getByRole("progressbar", { name: `Documents built in ${SPACE}` });
      await expect(bar).toHaveAttribute("aria-valuenow", "3", { timeout: 90_000 });
      await expect(panel.getByTestId("migration-texts")).not.toHaveText("0");
      // The worker's maintenance (every 10 s) builds the space's HNSW index, then marks it READY.
      await expect(panel.getByTestId("migration-state")).toHaveAttribute("data-state", "READY", { timeout: 90_000 });
      await expect(panel.getByTestId("migration-index-built")).toHaveText("built");
      await expect(panel.getByTestId("migration-event")).toHaveCount(2);
      await expectAccessible(page, "migration READY");
      await shot("m4-ready.png");
      await switchTheme(page, "dark");
      await shot("m4-ready-dark.png");
      await switchTheme(page, "light");
    });

    await test.step("Switch: search in the tenant reads local-256", async () => {
      await page.getByTestId("migration-switch").click();
      const dialog = page.getByRole("dialog", { name: `Switch ${tenant} to ${SPACE}` });
      await expect(dialog.getByTestId("switch-not-ready-warning")).toHaveCount(0);
      await dialog.getByTestId("action-reason").fill("local-256 answers as well");
      await dialog.getByTestId("action-reason").press("Tab");
      await page.keyboard.press("Tab"); // Cancel → Switch
      await expect(dialog.getByTestId("migration-switch-confirm")).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(dialog).toBeHidden();
      await expect(page.getByTestId("toast").filter({ hasText: `Search in ${tenant} reads ${SPACE}` })).toBeVisible();
      const panel = page.getByTestId("migration-panel");
      await expect(panel.getByTestId("migration-state")).toHaveAttribute("data-state", "SWITCHED");
      await expect(panel.getByTestId("migration-to")).toContainText("Active: search reads it");
      await expect(panel.getByTestId("migration-from")).toContainText("Previous, kept in step");
      await expect(page.getByTestId("tenant-active-space")).toHaveText(SPACE, { timeout: 15_000 });
      await shot("m5-switched.png");
    });

    await test.step("the overview counts the open migration and links to the tenants", async () => {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview" }).click();
      const card = page.getByTestId("overview-migrations");
      await expect(card.getByTestId("overview-migrations-summary")).toContainText("1 migration is open");
      await card.getByRole("link", { name: "Tenants and migrations" }).click();
      await page.waitForURL(/\/tenants$/);
      const row = page.locator(`[data-testid="tenant-row"][data-tenant="${tenant}"]`);
      await expect(row.getByTestId("tenant-space")).toHaveText(SPACE);
      await expect(row.getByTestId("tenant-migration-state")).toHaveAttribute("data-state", "SWITCHED");
      await shot("m5b-tenants.png");
    });

    await test.step("the search page names the space that answered: local-256", async () => {
      await expectSearchSpace(page, tenant, docs[1].text, docs[1].key, SPACE);
      await expect(page.getByTestId("search-space")).toContainText(`Answered from index space ${SPACE}`);
      await shot("m6-search-local-256.png");
    });

    await test.step("the document page names the space search reads, linking to the migrations", async () => {
      await page.getByTestId("search-hit").first().getByTestId("hit-document-key").click();
      await page.waitForURL(`**/documents/${tenant}/${docs[1].key}`);
      const space = page.getByTestId("doc-space");
      await expect(space).toHaveText(SPACE);
      await expect(space.getByRole("link")).toHaveAttribute("href", `/tenants/${tenant}/migrations`);
      // v1 is ACTIVE in both spaces; only local-256's is what search reads.
      await expect(page.getByTestId("index-version-other-space")).toHaveCount(1);
      await shot("m6b-document-space.png");
    });

    await test.step("Switch back: search reads the previous space again at once", async () => {
      await page.goto(`/tenants/${tenant}/migrations`);
      await page.getByTestId("migration-switch-back").click();
      const dialog = page.getByRole("dialog", { name: `Switch ${tenant} back to ${from}` });
      await expect(dialog.getByTestId("migration-effect")).toContainText("Nothing is re-embedded");
      await dialog.getByTestId("migration-switch-back-confirm").click();
      await expect(dialog).toBeHidden();
      const row = page.locator('[data-testid="migration-row"]').first();
      await expect(row).toHaveAttribute("data-state", "SWITCHED_BACK");
      await expect(page.getByTestId("tenant-active-space")).toHaveText(from);
      await expect(page.getByTestId("migration-start-open")).toBeEnabled();
      // The ended migration stays in the list; open it to read its timeline.
      await row.getByRole("link").click();
      await expect(page.getByTestId("migration-panel").getByTestId("migration-state")).toHaveAttribute(
        "data-state",
        "SWITCHED_BACK",
      );
      await expect(page.locator('[data-testid="migration-event"][data-kind="ended"]')).toContainText(
        `Switched back: search reads ${from}`,
      );
      await shot("m7-switched-back.png");
      await expectSearchSpace(page, tenant, docs[1].text, docs[1].key, from);
    });

    await test.step("the tasks list shows the builds as MIGRATE: Migration build", async () => {
      await page.goto(`/tasks?type=MIGRATE&tenant=${tenant}`);
      const rows = page.getByTestId("task-row");
      await expect(rows).toHaveCount(3);
      for (const r of await rows.all()) await expect(r).toContainText("Migration build");
      await rows.first().getByTestId("task-link").click();
      await expect(page.getByTestId("task-type")).toHaveText("MIGRATE");
      await expect(page.getByTestId("task-migration-link")).toHaveAttribute("href", `/tenants/${tenant}/migrations`);
      await shot("m7b-migrate-task.png");
    });

    await test.step("the index spaces page lists local-256 with its index built", async () => {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Index spaces" }).click();
      await page.waitForURL("**/spaces");
      const row = page.locator(`[data-testid="space-row"][data-space="${SPACE}"]`);
      await expect(row.getByTestId("space-index")).toHaveText("built");
      await expect(row.getByTestId("space-tenants")).toHaveText("0");
      await expect(
        page.locator(`[data-testid="space-row"][data-space="${from}"]`).getByTestId("space-default"),
      ).toBeVisible();
      // The table fits the page: nothing scrolls sideways at the configured 1360 px.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const wrap = page.getByTestId("spaces-table").locator("xpath=..");
      expect(await wrap.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      await expectAccessible(page, "index spaces");
      await shot("m8-spaces.png");
    });

    await test.step("registering a space whose key variable is unset: the probe's refusal at the field", async () => {
      await page.getByTestId("space-create-open").click();
      const dialog = page.getByRole("dialog", { name: "Register an index space" });
      await dialog.getByTestId("space-name").fill(`e2e-no-key-${nonce}`);
      await dialog.getByTestId("space-provider").selectOption("openai");
      await dialog.getByTestId("space-model").fill("text-embedding-3-small");
      await dialog.getByTestId("space-dimensions").fill("384");
      await dialog.getByTestId("space-api-key-env").fill("E2E_NO_SUCH_API_KEY");
      await dialog.getByTestId("space-create-submit").click();
      await expect(dialog.getByTestId("action-error")).toContainText("SPACE_KEY_MISSING");
      await expect(dialog.getByTestId("space-api-key-env-error")).toContainText("E2E_NO_SUCH_API_KEY");
      await expect(dialog.getByTestId("space-api-key-env")).toHaveAttribute("aria-invalid", "true");
      await expectAccessible(page, "register-space dialog, refused");
      await shot("m9-space-key-missing.png");
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      await expect(page.locator(`[data-testid="space-row"][data-space="e2e-no-key-${nonce}"]`)).toHaveCount(0);
    });
  } finally {
    await resumeTenant(tenant);
    await closeMigrations(tenant);
    const client = apiClient();
    for (const d of docs)
      await client.DELETE("/api/v1/tenants/{tenant}/documents/{key}", { params: { path: { tenant, key: d.key } } });
    // A space this test registered is retired again (a retired space stays listed; nothing builds in it).
    if (created)
      await client.POST("/api/v1/admin/embedding-spaces/{name}/retire", {
        params: { path: { name: SPACE } },
        body: { reason: "e2e cleanup" },
      });
  }
});
