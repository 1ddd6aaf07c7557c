// Journeys against the embeddings provider (the fake OpenAI-compatible server of e2e/services/,
// which the app is configured to use in playwright.config.ts): a large document indexed in many
// batches with a live progress bar, and a provider outage that kills a task until an operator
// retries it once the provider is back.
//
// Every fault is scoped to a marker (the document key) that only the test's own document
// contains, so the other specs never see it.

import type { Page } from "@playwright/test";
import { unwrap } from "../lib/client";
import { attachShot, clearProviderRule, expect, providerRuleHits, setProviderRule, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion } from "./support/api";

const TENANT = "e2e";
/** EMBED_BATCH_SIZE of the e2e app server (playwright.config.ts). */
const BATCH_SIZE = 4;

async function publishMarkdown(key: string, markdown: string, title: string): Promise<{ taskId: string }> {
  const r = await publishVersion(TENANT, key, { title, content: markdown });
  expect(r.taskId, `publish ${TENANT}/${key} queued no task`).not.toBeNull();
  return { taskId: String(r.taskId) };
}

async function getTask(taskId: string) {
  return unwrap(apiClient().GET("/api/v1/tasks/{taskId}", { params: { path: { taskId } } }));
}

/** Searches the tenant from the dashboard's Search page; the first hit must be `key` with `text`. */
async function searchFinds(page: Page, query: string, key: string, text: string): Promise<void> {
  await page.getByRole("link", { name: "Search", exact: true }).click();
  await page.waitForURL("**/search");
  await page.getByLabel("Tenant").fill(TENANT);
  await page.getByLabel("Query").fill(query);
  await page.getByTestId("search-submit").click();
  const first = page.getByTestId("search-hit").first();
  await expect(first).toBeVisible({ timeout: 20_000 });
  await expect(first).toHaveAttribute("data-document-key", key);
  await expect(first).toContainText(text);
}

type Snapshot = { state: string | null; now: number | null; max: number | null; text: string | null };

/** The document page's state and its progress bar, read in one go so they belong together. */
function snapshot(page: Page): Promise<Snapshot> {
  return page.evaluate(() => {
    const badge = document.querySelector('[data-testid="state-badge"]');
    const bar = document.querySelector('[role="progressbar"][aria-label="Chunks indexed"]');
    const num = (v: string | null | undefined) => (v === null || v === undefined || v === "" ? null : Number(v));
    return {
      state: badge?.getAttribute("data-state") ?? null,
      now: num(bar?.getAttribute("aria-valuenow")),
      max: num(bar?.getAttribute("aria-valuemax")),
      text: bar?.getAttribute("aria-valuetext") ?? null,
    };
  });
}

test("a large document: INDEXING with a moving progress bar, then SEARCHABLE and found by search", async ({
  signedIn: page,
}) => {
  const key = uniqueKey("e2e-big");
  const nonce = key.split("-").slice(-2).join(" ");
  const SECTIONS = 60; // one chunk each: 15 embedding batches of 4
  const DELAY_MS = 700; // per batch: about ten seconds of INDEXING to watch
  const sentence = `Narwhals calibrate copper astrolabes beside midnight orchards ${nonce}.`;
  const title = `Harbour ledger ${nonce}`;
  const lines = [`# ${title}`, ""];
  for (let i = 1; i <= SECTIONS; i++) {
    // Every chunk carries the key, so the provider's delay rule applies to every batch.
    lines.push(`## Clause ${i}`, "", `Clause ${i} of ledger ${key} records the ferry tolls of pier ${i}.`, "");
    if (i === 37) lines.push(sentence, "");
  }

  await setProviderRule(page.request, { match: key, delayMs: DELAY_MS });
  try {
    let taskId = "";
    await test.step("publish a document of 60 chunks; the provider answers each batch slowly", async () => {
      ({ taskId } = await publishMarkdown(key, lines.join("\n"), title));
    });

    await test.step("the documents list shows it INDEXING with a progress bar", async () => {
      await page.getByRole("searchbox", { name: "Search" }).fill(key);
      await expect(page).toHaveURL(new RegExp(`[?&]q=${key}`));
      const row = page.locator(`[data-testid="doc-row"][data-key="${key}"]`);
      await expect(row).toBeVisible();
      const bar = row.getByRole("progressbar", { name: `Indexing progress of ${key}` });
      await expect(bar).toBeVisible({ timeout: 15_000 });
      await expect(bar).toHaveAttribute("aria-valuemax", String(SECTIONS));
      await expect(row.getByTestId("state-badge")).toHaveAttribute("data-state", "INDEXING");
      await attachShot(page, "p1-list-indexing.png");
      await row.getByRole("link", { name: key }).click();
      await page.waitForURL(`**/documents/${TENANT}/${key}`);
    });

    await test.step("the document page's progress bar moves forward while the state is INDEXING", async () => {
      const badge = page.getByTestId("state-badge");
      await expect(badge).toHaveAttribute("data-state", "INDEXING");
      const bar = page.getByRole("progressbar", { name: "Chunks indexed" });
      await expect(bar).toBeVisible();
      await expect(bar).toHaveAttribute("aria-valuemin", "0");
      await expect(bar).toHaveAttribute("aria-valuemax", String(SECTIONS));

      // Sample until two different values were seen while INDEXING (a screenshot of each).
      const seen: number[] = [];
      const deadline = Date.now() + 60_000;
      while (seen.length < 2 && Date.now() < deadline) {
        const s = await snapshot(page);
        if (s.state !== "INDEXING") break;
        if (s.now !== null && s.now !== seen[seen.length - 1]) {
          expect(s.max).toBe(SECTIONS);
          // Assistive technology gets the value spelled out, as sighted users read it beside the bar.
          expect(s.text).toMatch(new RegExp(`^${s.now} / ${SECTIONS} chunks \\(\\d+%\\)$`));
          seen.push(s.now);
          await attachShot(page, `p${seen.length + 1}-detail-progress-${s.now}-of-${SECTIONS}.png`);
        }
        await page.waitForTimeout(150);
      }
      expect(seen, `progress values seen while INDEXING (state now ${(await snapshot(page)).state})`).toHaveLength(2);
      expect(seen[1]).toBeGreaterThan(seen[0]);
      expect(seen[1]).toBeLessThanOrEqual(SECTIONS);

      // Once the bar has moved, it estimates the time left (unless indexing finished first).
      const eta = page.getByTestId("progress-eta");
      await expect
        .poll(async () => (await eta.count()) > 0 || (await snapshot(page)).state !== "INDEXING", { timeout: 10_000 })
        .toBe(true);
      if ((await eta.count()) > 0) {
        await expect(eta).toHaveText(/^ · about (\d+(\.\d)? s|\d+ min( \d+ s)?) left$/);
        await attachShot(page, "p3b-detail-progress-eta.png");
      }
    });

    await test.step("it becomes SEARCHABLE; the bar is gone and the task embedded in many batches", async () => {
      const badge = page.getByTestId("state-badge");
      await expect(badge).toHaveAttribute("data-state", "SEARCHABLE", { timeout: 60_000 });
      await expect(page.getByTestId("search-version")).toHaveText("v1");
      await expect(page.getByRole("progressbar", { name: "Chunks indexed" })).toHaveCount(0);
      await expect(page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`)).toHaveAttribute(
        "data-status",
        "SUCCEEDED",
      );
      await attachShot(page, "p4-detail-searchable.png");

      const task = await getTask(taskId);
      expect(task.stats).toMatchObject({
        chunksTotal: SECTIONS,
        chunksReused: 0,
        batchesSent: Math.ceil(SECTIONS / BATCH_SIZE),
      });
      expect(await providerRuleHits(page.request, key)).toBe(Math.ceil(SECTIONS / BATCH_SIZE));
    });
  } finally {
    await clearProviderRule(page.request, key);
  }

  await test.step("search finds the sentence in it", async () => {
    await searchFinds(page, sentence, key, "Narwhals calibrate copper astrolabes");
    await attachShot(page, "p5-search-found.png");
  });
});

test("provider outage: DEAD with EMBEDDING_PROVIDER_UNAVAILABLE, provider recovers, Retry from the dashboard, SEARCHABLE", async ({
  signedIn: page,
}) => {
  const key = uniqueKey("e2e-outage");
  const nonce = key.split("-").slice(-2).join(" ");
  const sentence = `Otters varnish porcelain canoes under amber glaciers ${nonce}.`;
  const title = `Canoe workshop ${nonce}`;
  const markdown = [
    `# ${title}`,
    "",
    "## Materials",
    "",
    `${sentence} Reference ${key}.`,
    "",
    "## Schedule",
    "",
    `Workshop ${key} opens at dawn on the north jetty.`,
    "",
  ].join("\n");
  const CODE = "EMBEDDING_PROVIDER_UNAVAILABLE";
  let taskId = "";

  await setProviderRule(page.request, { match: key, status: 500 });
  try {
    await test.step("publish while the provider answers 500 for this document", async () => {
      ({ taskId } = await publishMarkdown(key, markdown, title));
    });

    await test.step("the document page says FAILED with the error code, the task DEAD after every attempt", async () => {
      await page.goto(`/documents/${TENANT}/${key}`);
      await expect(page.getByTestId("state-badge")).toHaveAttribute("data-state", "FAILED", { timeout: 60_000 });
      await expect(page.getByTestId("state-explainer")).toHaveText("Not searchable: indexing v1 failed.");
      const error = page.getByTestId("last-error");
      await expect(error).toBeVisible();
      await expect(error.locator("code", { hasText: CODE })).toHaveText(CODE);
      await expect(page.getByTestId("search-version")).toContainText("none yet");
      const row = page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`);
      await expect(row).toHaveAttribute("data-status", "DEAD");
      await expect(row).toContainText(CODE);
      await attachShot(page, "f1-document-failed.png");

      // Each attempt stopped at its first batch: one provider call per attempt, all answered 500.
      const task = await getTask(taskId);
      expect(task.status).toBe("DEAD");
      expect(task.errorCode).toBe(CODE);
      expect(task.attempts).toBe(task.maxAttempts);
      await expect(row).toContainText(`${task.attempts} / ${task.maxAttempts}`);
      expect(await providerRuleHits(page.request, key)).toBe(task.attempts);
    });

    await test.step("the task page shows DEAD and the code on its timeline", async () => {
      await page.getByTestId("last-error-task-link").click();
      await page.waitForURL(/\/tasks\/\d+$/);
      await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "DEAD");
      await expect(page.getByTestId("task-error")).toContainText(CODE);
      const timeline = page.getByTestId("task-timeline");
      await expect(timeline.locator('[data-testid="timeline-event"][data-kind="FAILED"]').first()).toContainText(CODE);
      await expect(timeline.locator('[data-testid="timeline-event"][data-kind="DEAD"]')).toBeVisible();
      await attachShot(page, "f2-task-dead.png");
    });
  } finally {
    await test.step("the provider recovers", async () => {
      await clearProviderRule(page.request, key);
    });
  }

  await test.step("retry from the document page, through the confirmation", async () => {
    await page.getByTestId("task-document-link").click();
    await page.waitForURL(`**/documents/${TENANT}/${key}`);
    await page.getByTestId("last-error").getByTestId("task-retry").click();
    const dialog = page.getByRole("dialog", { name: `Retry task #${taskId}` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("action-effect")).toContainText("PENDING with a fresh attempt budget");
    await expect(dialog.getByTestId("action-effect")).toContainText(CODE);
    await dialog.getByTestId("action-reason").fill("Embedding provider is back");
    await attachShot(page, "f3-retry-dialog.png");
    await dialog.getByTestId("retry-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `Task #${taskId} queued again` })).toBeVisible();
  });

  await test.step("the same task succeeds and the document is SEARCHABLE", async () => {
    await expect(page.getByTestId("state-badge")).toHaveAttribute("data-state", "SEARCHABLE", { timeout: 60_000 });
    await expect(page.getByTestId("search-version")).toHaveText("v1");
    await expect(page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`)).toHaveAttribute(
      "data-status",
      "SUCCEEDED",
    );
    await expect(page.getByTestId("last-error")).toHaveCount(0);
    await attachShot(page, "f4-document-searchable.png");
  });

  await test.step("search finds its text", async () => {
    await searchFinds(page, sentence, key, "Otters varnish porcelain canoes");
    await attachShot(page, "f5-search-found.png");
  });
});
