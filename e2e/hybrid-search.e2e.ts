import { expect, shooter, test, uniqueKey } from "./fixtures";
import { apiClient, getDocument, publishVersion } from "./support/api";

// A manual names a part code once in a long paragraph; short catalogue pages name near-identical
// codes. By embedding, the catalogue pages are nearer a bare code than the manual; the full-text
// side matches the exact code, so hybrid search (the default) finds the manual and vector search
// does not.
const CODE = "XQ-7731-B";
const MANUAL =
  "# Pump manual\n\n## Maintenance\n\n" +
  "Before servicing the circulation pump, isolate the supply, drain the housing and let the unit cool for at least thirty minutes. " +
  `Replace the impeller seal kit ${CODE} every two years or after any dry running, and check the bearing for play while the cover is off. ` +
  "Refill slowly, bleed the air from the top vent and watch the pressure gauge settle before restoring power to the controller.\n";
const LOOKALIKES = [
  "XQ-7731-C",
  "XQ-7731-D",
  "XQ-7713-B",
  "XQ-7731-E",
  "XQ-7371-B",
  "XQ-7731-F",
  "XQ-1773-B",
  "XQ-7731-G",
];

async function publishDoc(tenant: string, key: string, content: string) {
  const r = await publishVersion(tenant, key, { content });
  expect(r.taskId, `publish ${tenant}/${key} queued no task`).not.toBeNull();
}

test("hybrid search finds a document by an exact product code that vector search misses", async ({
  signedIn: page,
}) => {
  const tenant = uniqueKey("hybrid");
  const docs = [
    { key: "pump-manual", content: MANUAL },
    ...LOOKALIKES.map((code, i) => ({ key: `catalogue-${i}`, content: `# Part ${code}\n\nPart ${code} seal kit.\n` })),
  ];
  const shot = shooter(page);
  try {
    await test.step("seed a manual and eight look-alike catalogue pages", async () => {
      for (const d of docs) await publishDoc(tenant, d.key, d.content);
      for (const d of docs) {
        await expect.poll(async () => (await getDocument(tenant, d.key)).state, { timeout: 60_000 }).toBe("SEARCHABLE");
      }
    });

    const hits = page.getByTestId("search-hit");
    const manualHit = page.locator('[data-testid="search-hit"][data-document-key="pump-manual"]');

    await test.step("vector search: the look-alikes take every slot", async () => {
      await page.goto("/search");
      await page.getByLabel("Tenant").fill(tenant);
      await page.getByLabel("Query").fill(CODE);
      await page.getByLabel("Top K").fill("3");
      // The mode is a radio group: keyboard users reach it with Tab and move with the arrow keys.
      const hybrid = page.getByRole("radio", { name: "Hybrid" });
      await expect(hybrid).toBeChecked();
      await hybrid.focus();
      await page.keyboard.press("ArrowRight");
      await expect(page.getByRole("radio", { name: "Vector" })).toBeChecked();
      await page.getByTestId("search-submit").click();
      await expect(page).toHaveURL(/[?&]mode=vector/);
      await expect(hits).toHaveCount(3, { timeout: 20_000 });
      await expect(manualHit).toHaveCount(0);
      await shot("01-vector-misses-code.png");
    });

    await test.step("hybrid search (the default): the manual is found", async () => {
      await page.getByRole("radio", { name: "Vector" }).focus();
      await page.keyboard.press("ArrowLeft");
      await expect(page.getByRole("radio", { name: "Hybrid" })).toBeChecked();
      // A search already shown runs again in the new mode; hybrid is the default, so the URL drops it.
      await expect(page).not.toHaveURL(/[?&]mode=/);
      await expect(manualHit).toHaveCount(1, { timeout: 20_000 });
      await expect(manualHit).toContainText(CODE);
      await shot("02-hybrid-finds-code.png");
    });

    await test.step("text search: the manual alone, first", async () => {
      await page.getByRole("radio", { name: "Text" }).check();
      await expect(page).toHaveURL(/[?&]mode=text/);
      await expect(hits).toHaveCount(1, { timeout: 20_000 });
      await expect(hits.first()).toHaveAttribute("data-document-key", "pump-manual");
      await shot("03-text-finds-code.png");
    });
  } finally {
    for (const d of docs)
      await apiClient().DELETE("/api/v1/tenants/{tenant}/documents/{key}", {
        params: { path: { tenant, key: d.key } },
      });
  }
});
