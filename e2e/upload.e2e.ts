import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { makeDocx } from "../test/helpers/make-docx";
import { makePdf } from "../test/helpers/make-pdf";
import { expect, saveScreenshot, shooter, switchTheme, test, uniqueKey } from "./fixtures";

const TENANT = "e2e";
const PDF = "application/pdf";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

async function openDialog(page: Page): Promise<Locator> {
  await page.getByTestId("publish-open").click();
  const dialog = page.getByRole("dialog", { name: "Publish document" });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Tenant").fill(TENANT);
  return dialog;
}

/** Publishes, then waits on the document's page until it is SEARCHABLE. */
async function publishAndWait(
  page: Page,
  dialog: Locator,
  key: string,
  shot: (n: string) => Promise<void>,
  prefix: string,
): Promise<void> {
  await dialog.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(dialog).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId("toast").filter({ hasText: key })).toBeVisible();
  await page.goto(`/documents/${TENANT}/${key}`);
  const badge = page.getByTestId("state-badge");
  await expect(badge).toHaveAttribute("data-state", "SEARCHABLE", { timeout: 90_000 });
  await shot(`${prefix}-searchable.png`);
}

async function searchFor(
  page: Page,
  query: string,
  key: string,
  shot: (n: string) => Promise<void>,
  name: string,
): Promise<void> {
  await page.getByRole("link", { name: "Search", exact: true }).click();
  await page.waitForURL("**/search");
  await page.getByLabel("Tenant").fill(TENANT);
  await page.getByLabel("Query").fill(query);
  await page.getByTestId("search-submit").click();
  const hit = page.locator(`[data-testid="search-hit"][data-document-key="${key}"]`).first();
  await expect(hit).toBeVisible({ timeout: 20_000 });
  await shot(name);
}

/** axe on the open dialog, light then dark; serious and critical findings fail the test. */
async function auditDialog(page: Page, name: string): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await switchTheme(page, scheme);
    const results = await new AxeBuilder({ page }).include("dialog[open]").withTags(TAGS).analyze();
    const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    await test.info().attach(`axe-${name}-${scheme}.json`, {
      body: JSON.stringify(results.violations, null, 2),
      contentType: "application/json",
    });
    await saveScreenshot(page, test.info().outputPath(`${name}-${scheme}.png`));
    expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
  }
  await switchTheme(page, "light");
}

test("choose a PDF with the file button: type, size and key shown, upload progress, searchable, found; the dialog passes axe", async ({
  signedIn: page,
}) => {
  const nonce = uniqueKey("n").split("-").slice(-2).join(" ");
  const sentence = `Albatrosses catalogue vermilion harbour lanterns every solstice ${nonce}.`;
  const fileName = `Harbour Lanterns ${nonce.replace(" ", "-")}.pdf`;
  const key = `harbour-lanterns-${nonce.replace(" ", "-")}`;
  const shot = shooter(page);
  const dialog = await openDialog(page);
  const input = dialog.getByTestId("file-input");

  await test.step("an unsupported file is refused with a clear message", async () => {
    await input.setInputFiles({ name: "setup.exe", mimeType: "application/octet-stream", buffer: Buffer.from("MZ") });
    await expect(dialog.getByTestId("file-error")).toContainText('"setup.exe" is not a supported file type');
    await expect(dialog.getByTestId("file-chosen")).toHaveCount(0);
    await shot("01-unsupported.png");
  });

  await test.step("a Markdown file is previewed", async () => {
    await input.setInputFiles({
      name: "Draft notes.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("# Draft\n\nA preview of the notes.\n"),
    });
    await expect(dialog.getByTestId("file-error")).toHaveCount(0);
    await expect(dialog.getByTestId("file-type")).toHaveText("text/markdown");
    await expect(dialog.getByTestId("file-preview")).toContainText("A preview of the notes.");
    await expect(dialog.getByLabel("Key", { exact: true })).toHaveValue("draft-notes");
    await dialog.getByRole("button", { name: "Remove file" }).click();
    await expect(dialog.getByLabel("Content", { exact: true })).toBeVisible();
    // The prefilled fields are the person's to keep or clear; clear them so the PDF fills them.
    await dialog.getByLabel("Key", { exact: true }).fill("");
    await dialog.getByLabel("Title").fill("");
  });

  await test.step("choose the PDF", async () => {
    const pdf = makePdf([[`Harbour lanterns ${nonce}`, "", sentence]]);
    await input.setInputFiles({ name: fileName, mimeType: PDF, buffer: Buffer.from(pdf) });
    await expect(dialog.getByTestId("file-name")).toHaveText(fileName);
    await expect(dialog.getByTestId("file-type")).toHaveText(PDF);
    await expect(dialog.getByTestId("file-size")).toHaveText(/^\d+(\.\d)? (B|KB)$/);
    await expect(dialog.getByTestId("file-preview")).toHaveCount(0);
    await expect(dialog.getByLabel("Key", { exact: true })).toHaveValue(key);
    await expect(dialog.getByLabel("Title")).toHaveValue(fileName.replace(/\.pdf$/, ""));
    await expect(dialog.getByLabel("Content type")).toHaveValue(PDF);
    await shot("02-pdf-chosen.png");
  });

  await test.step("axe: the dialog with a file chosen (light and dark)", async () => {
    await auditDialog(page, "03-dialog-file-chosen");
  });

  await test.step("publish: the upload's progress bar shows while the request is in flight", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`**/api/v1/tenants/${TENANT}/documents/${key}/versions`, async (route) => {
      await held;
      await route.continue();
    });
    await dialog.getByRole("button", { name: "Publish", exact: true }).click();
    const bar = dialog.getByRole("progressbar", { name: "Upload progress" });
    await expect(bar).toBeVisible();
    await expect(bar).toHaveAttribute("aria-valuetext", /^\d+(\.\d)? (B|KB) \/ \d+(\.\d)? (B|KB) \(\d+%\)$/);
    await expect(dialog.getByRole("button", { name: "Publishing…" })).toBeDisabled();
    await shot("04-upload-progress.png");
    release();
    await expect(dialog).toBeHidden({ timeout: 30_000 });
    await page.unroute(`**/api/v1/tenants/${TENANT}/documents/${key}/versions`);
    await expect(page.getByTestId("toast").filter({ hasText: key })).toBeVisible();
    await page.goto(`/documents/${TENANT}/${key}`);
    await expect(page.getByTestId("state-badge")).toHaveAttribute("data-state", "SEARCHABLE", { timeout: 90_000 });
    await shot("05-pdf-searchable.png");
  });

  await test.step("search finds the PDF", async () => {
    await searchFor(page, sentence, key, shot, "06-pdf-search.png");
  });
});

test("drop a DOCX on the drop zone: it becomes searchable and is found", async ({ signedIn: page }) => {
  const nonce = uniqueKey("n").split("-").slice(-2).join(" ");
  const sentence = `Narwhals embroider saffron telescopes beneath glacial auroras ${nonce}.`;
  const key = uniqueKey("e2e-upload-docx");
  const shot = shooter(page);
  const dialog = await openDialog(page);
  await dialog.getByLabel("Key", { exact: true }).fill(key);

  await test.step("drop the DOCX", async () => {
    const docx = Buffer.from(makeDocx([{ text: `Telescope notes ${nonce}`, style: "Heading1" }, sentence])).toString(
      "base64",
    );
    const dataTransfer = await page.evaluateHandle(
      ({ b64, type }) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], "Telescope notes.docx", { type }));
        return dt;
      },
      { b64: docx, type: DOCX },
    );
    const zone = dialog.getByTestId("file-drop");
    await zone.dispatchEvent("dragenter", { dataTransfer });
    await zone.dispatchEvent("dragover", { dataTransfer });
    await expect(zone).toHaveClass(/file-drop--over/);
    await zone.dispatchEvent("drop", { dataTransfer });
    await expect(dialog.getByTestId("file-name")).toHaveText("Telescope notes.docx");
    await expect(dialog.getByTestId("file-type")).toHaveText(DOCX);
    // A key typed before the drop is kept; the empty title is filled from the file name.
    await expect(dialog.getByLabel("Key", { exact: true })).toHaveValue(key);
    await expect(dialog.getByLabel("Title")).toHaveValue("Telescope notes");
    await shot("01-docx-dropped.png");
  });

  await test.step("publish and wait until searchable", async () => {
    await publishAndWait(page, dialog, key, shot, "02-docx");
  });

  await test.step("search finds the DOCX", async () => {
    await searchFor(page, sentence, key, shot, "03-docx-search.png");
  });
});

test("a large text file: the progress bar moves with the bytes sent (upload throttled)", async ({ signedIn: page }) => {
  const key = uniqueKey("e2e-upload-large");
  const shot = shooter(page);
  const dialog = await openDialog(page);
  const line = "Porcupines rehearse quiet sonatas in the greenhouse after midnight.\n";
  const text = line.repeat(Math.ceil((400 * 1024) / line.length));
  await dialog
    .getByTestId("file-input")
    .setInputFiles({ name: `${key}.txt`, mimeType: "text/plain", buffer: Buffer.from(text) });
  await expect(dialog.getByLabel("Key", { exact: true })).toHaveValue(key);
  await expect(dialog.getByTestId("file-preview")).toContainText("Porcupines rehearse");
  await expect(dialog.getByText("Preview (start of the file)")).toBeVisible();

  // Chromium's network emulation throttles the request body, so the upload takes a few seconds.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 128 * 1024,
  });
  try {
    await dialog.getByRole("button", { name: "Publish", exact: true }).click();
    const bar = dialog.getByRole("progressbar", { name: "Upload progress" });
    const seen = new Set<number>();
    await expect
      .poll(
        async () => {
          const v = Number((await bar.getAttribute("aria-valuenow", { timeout: 1_000 }).catch(() => null)) ?? -1);
          if (v >= 0) seen.add(v);
          return [...seen].some((n) => n > 0 && n < 100);
        },
        { timeout: 20_000, intervals: [100] },
      )
      .toBe(true);
    await shot("01-large-upload-moving.png");
    await expect(dialog).toBeHidden({ timeout: 60_000 });
  } finally {
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
  }
  await expect(page.getByTestId("toast").filter({ hasText: key })).toBeVisible();
});

test("a file over the server's content limit: the dialog shows the API's CONTENT_TOO_LARGE", async ({
  signedIn: page,
}) => {
  const key = uniqueKey("e2e-upload-too-large");
  const dialog = await openDialog(page);
  // The e2e server keeps the default MAX_CONTENT_BYTES (10 MiB); the dashboard is not told it.
  const buffer = Buffer.alloc(10 * 1024 * 1024 + 1, "a");
  await dialog.getByTestId("file-input").setInputFiles({ name: `${key}.txt`, mimeType: "text/plain", buffer });
  await expect(dialog.getByTestId("file-size")).toHaveText("10 MB");
  await dialog.getByRole("button", { name: "Publish", exact: true }).click();
  const error = dialog.getByTestId("publish-error");
  await expect(error).toContainText("CONTENT_TOO_LARGE", { timeout: 30_000 });
  await expect(error).toBeInViewport();
  await expect(dialog.getByRole("button", { name: "Publish", exact: true })).toBeEnabled();
  await expect(dialog.getByTestId("upload-progress")).toHaveCount(0);
  await shooter(page)("01-too-large.png");
});
