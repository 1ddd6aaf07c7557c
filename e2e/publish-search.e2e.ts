import { expect, shooter, test, uniqueKey } from "./fixtures";
import { publishVersion } from "./support/api";

const TENANT = "e2e";

test("publish a Markdown document, watch it become searchable, then find it", async ({ signedIn: page }) => {
  const key = uniqueKey("e2e-doc");
  const nonce = key.split("-").slice(-2).join(" ");
  // Distinctive words so this document, and not some other one, is the best match.
  const sentence = `Quokkas photograph marmalade lighthouses during violet thunderstorms ${nonce}.`;
  const title = `Lighthouse notes ${nonce}`;
  const shot = shooter(page);

  await test.step("publish through the dialog", async () => {
    await page.getByTestId("publish-open").click();
    const dialog = page.getByRole("dialog", { name: "Publish document" });
    await expect(dialog).toBeVisible();

    await dialog.getByLabel("Tenant").fill(TENANT);
    await dialog.getByLabel("Key", { exact: true }).fill(key);
    await dialog.getByLabel("Title").fill(title);
    await dialog.getByLabel("Content type").selectOption("text/markdown");
    await dialog.getByLabel("Content", { exact: true }).fill(`# ${title}\n\n## Observations\n\n${sentence}\n`);
    await shot("01-publish-dialog.png");

    await dialog.getByRole("button", { name: "Publish", exact: true }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: key })).toBeVisible();
    await shot("02-published.png");
  });

  const row = page.locator(`[data-testid="doc-row"][data-key="${key}"]`);

  await test.step("see its row in the list", async () => {
    // Filter by the key so the row is on the first page however many documents exist; "/" jumps
    // to the search box from anywhere on the page, as the hint beside its label says.
    const searchbox = page.getByRole("searchbox", { name: "Search" });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("/");
    await expect(searchbox).toBeFocused();
    await page.keyboard.type(key);
    await expect(searchbox).toHaveValue(key);
    await expect(page).toHaveURL(new RegExp(`[?&]q=${key}`));
    await expect(row).toBeVisible();
    await expect(row).toHaveAttribute("data-tenant", TENANT);
    await expect(row.getByTestId("state-badge")).toBeVisible();
    await shot("03-list-row.png");
  });

  await test.step("open it and wait until it is searchable", async () => {
    await row.getByRole("link", { name: key }).click();
    await page.waitForURL(`**/documents/${TENANT}/${key}`);
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    const badge = page.getByTestId("state-badge");
    await expect(badge).toBeVisible();
    await shot("04-detail-initial.png");

    await expect(badge).toHaveAttribute("data-state", "SEARCHABLE", { timeout: 60_000 });
    await expect(page.getByTestId("search-version")).toHaveText(/^v\d+$/);
    await shot("05-detail-searchable.png");
  });

  await test.step("search the tenant for the sentence", async () => {
    await page.getByRole("link", { name: "Search", exact: true }).click();
    await page.waitForURL("**/search");
    await page.getByLabel("Tenant").fill(TENANT);
    await page.getByLabel("Query").fill(sentence);
    await page.getByTestId("search-submit").click();

    await expect(page).toHaveURL(/[?&]tenant=e2e/);
    const first = page.getByTestId("search-hit").first();
    await expect(first).toBeVisible({ timeout: 20_000 });
    await expect(first).toHaveAttribute("data-document-key", key);
    await expect(first.getByTestId("hit-document-key")).toHaveText(key);
    await shot("06-search-results.png");
  });
});

test("the Search page's tenant suggestion never changes what someone is typing", async ({ signedIn: page }) => {
  // A tenant named "default" is what the form suggests once the tenant list arrives.
  const seeded = await publishVersion("default", uniqueKey("e2e-suggest"), {
    title: "Suggestion",
    contentType: "text/plain",
    content: "Present so that the default tenant exists.",
  });
  expect(seeded.taskId).not.toBeNull();

  // Hold the tenant list back until the person is already in the field.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/v1/tenants", async (route) => {
    await gate;
    await route.continue();
  });
  await page.goto("/search");
  const tenant = page.getByLabel("Tenant");
  await tenant.click();
  release();
  await expect.poll(() => page.locator("datalist option").count()).toBeGreaterThan(0);
  await page.keyboard.type(TENANT);
  await expect(tenant).toHaveValue(TENANT);
  await page.unroute("**/api/v1/tenants");
});
