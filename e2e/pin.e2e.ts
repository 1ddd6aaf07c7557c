import { E2E_TOKEN, expect, shooter, test, uniqueKey } from "./fixtures";
import { publishVersion, readDocument } from "./support/api";

const TENANT = "e2e";
const AUTH = { authorization: `Bearer ${E2E_TOKEN}` };

type Doc = {
  state: string;
  businessVersion: number;
  searchVersion: number | null;
  pinned: boolean;
  pinnedBy: string | null;
};

async function publishMarkdown(key: string, title: string, body: string): Promise<void> {
  await publishVersion(TENANT, key, { title, content: `# ${title}\n\n${body}\n` });
}

async function getDoc(key: string): Promise<Doc | null> {
  return (await readDocument(TENANT, key)).doc;
}

async function waitSearchable(key: string, version: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const d = await getDoc(key);
        return d ? `${d.state}@v${d.searchVersion}` : "missing";
      },
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe(`SEARCHABLE@v${version}`);
}

test("unpin: after a rollback to v1 is pinned, Unpin… returns search to v2", async ({ signedIn: page }) => {
  const key = uniqueKey("e2e-pin");
  const nonce = key.split("-").slice(-2).join(" ");
  const v1Sentence = `Herons alphabetise crimson lanterns along the quay ${nonce}.`;
  const v2Sentence = `Otters audit velvet compasses under moonlit glaciers ${nonce}.`;
  const reason = "v2 quotes last year's prices";
  const shot = shooter(page);

  await test.step("publish v1 and v2 and wait until v2 is searchable", async () => {
    await publishMarkdown(key, "Pin notes", v1Sentence);
    await waitSearchable(key, 1);
    await publishMarkdown(key, "Pin notes", v2Sentence);
    await waitSearchable(key, 2);
  });

  await test.step("not pinned: no pin note and no Unpin button", async () => {
    await page.goto(`/documents/${TENANT}/${key}`);
    await expect(page.getByTestId("search-version")).toHaveText("v2");
    await expect(page.getByTestId("action-rollback")).toBeEnabled();
    await expect(page.getByTestId("pin-note")).toHaveCount(0);
    await expect(page.getByTestId("action-unpin")).toHaveCount(0);
    await shot("p1-searchable-v2.png");
  });

  await test.step("roll back to v1 in the dashboard", async () => {
    await page.getByTestId("action-rollback").click();
    const dialog = page.getByRole("dialog", { name: `Roll back ${key}` });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Version to serve").selectOption("1");
    await dialog.getByTestId("action-reason").fill(reason);
    await dialog.getByTestId("rollback-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `Search now serves ${key} v1` })).toBeVisible();
  });

  await test.step("pinned: one note says to which version, by whom and why", async () => {
    const pinnedBy = (await getDoc(key))?.pinnedBy;
    expect(pinnedBy).toBeTruthy();
    await expect(page.getByTestId("search-version")).toHaveText("v1");
    const note = page.getByTestId("pin-note");
    await expect(note).toBeVisible();
    await expect(note).toContainText(`Pinned to v1 by ${pinnedBy}: “${reason}”`);
    await expect(page.getByTestId("search-behind")).toHaveCount(0);
    await expect(page.getByTestId("state-explainer")).toContainText("pinned there by a rollback");
    await expect(page.getByTestId("action-unpin")).toBeEnabled();
    await shot("p2-pinned-v1.png");
  });

  await test.step("Unpin… explains the effect; confirming returns search to v2", async () => {
    await page.getByTestId("action-unpin").click();
    const dialog = page.getByRole("dialog", { name: `Unpin ${key}` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("unpin-effect")).toContainText("Search returns to v2, the latest version");
    await expect(dialog.getByTestId("unpin-pin-reason")).toContainText(reason);
    await shot("p3-unpin-dialog.png");
    await dialog.getByTestId("unpin-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `Search now serves ${key} v2` })).toBeVisible();
  });

  await test.step("unpinned: the page shows v2 serving, no pin and no drift note", async () => {
    await expect(page.getByTestId("search-version")).toHaveText("v2");
    await expect(page.getByTestId("state-explainer")).toHaveText(
      "Searchable: the latest version (v2) is in the search index.",
    );
    await expect(page.locator('[data-testid="index-version-row"][data-version="2"][data-status="ACTIVE"]')).toHaveCount(
      1,
    );
    await expect(page.locator('[data-testid="index-version-row"][data-version="1"]').first()).toHaveAttribute(
      "data-status",
      "RETIRED",
    );
    await expect(page.getByTestId("pin-note")).toHaveCount(0);
    await expect(page.getByTestId("search-behind")).toHaveCount(0);
    await expect(page.getByTestId("action-unpin")).toHaveCount(0);
    expect(await getDoc(key)).toMatchObject({ state: "SEARCHABLE", searchVersion: 2, pinned: false, pinnedBy: null });
    await shot("p4-unpinned-v2.png");
  });

  await test.step("search serves v2's sentence again", async () => {
    await page.getByRole("link", { name: "Search", exact: true }).click();
    await page.waitForURL("**/search");
    await page.getByLabel("Tenant").fill(TENANT);
    await page.getByLabel("Query").fill(v2Sentence);
    await page.getByTestId("search-submit").click();
    const first = page.getByTestId("search-hit").first();
    await expect(first).toBeVisible({ timeout: 20_000 });
    await expect(first).toHaveAttribute("data-document-key", key);
    await expect(first).toHaveAttribute("data-version", "2");
    await expect(first).toContainText("Otters audit velvet");
    await expect(page.locator(`[data-testid="search-hit"][data-document-key="${key}"][data-version="1"]`)).toHaveCount(
      0,
    );
    await shot("p5-search-v2.png");
  });

  await test.step("clean up: delete the document", async () => {
    const res = await page.request.delete(`/api/v1/tenants/${TENANT}/documents/${key}`, { headers: AUTH });
    expect(res.status(), await res.text()).toBe(202);
  });
});
