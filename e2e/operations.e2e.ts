import { expect, shooter, test, uniqueKey } from "./fixtures";
import { publishVersion, readDocument } from "./support/api";

const TENANT = "e2e";
/** base64("not a pdf"): declared as a PDF, fails parsing with PARSE_ERROR and goes DEAD at once. */
const NOT_A_PDF = "bm90IGEgcGRm";

type DocState = { state: string; businessVersion: number; searchVersion: number | null };

async function publishMarkdown(key: string, title: string, body: string): Promise<number> {
  return (await publishVersion(TENANT, key, { title, content: `# ${title}\n\n${body}\n` })).versionNumber;
}

async function publishBrokenPdf(key: string, title: string): Promise<number> {
  return (
    await publishVersion(TENANT, key, {
      title,
      contentType: "application/pdf",
      contentEncoding: "base64",
      content: NOT_A_PDF,
    })
  ).versionNumber;
}

async function docState(key: string): Promise<DocState> {
  const { doc, status } = await readDocument(TENANT, key);
  if (!doc) return { state: `HTTP_${status}`, businessVersion: 0, searchVersion: null };
  return { state: doc.state, businessVersion: doc.businessVersion, searchVersion: doc.searchVersion };
}

/** Polls the API until the document reaches `state` (and, if given, search serves `searchVersion`). */
async function waitForState(key: string, state: string, searchVersion?: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const s = await docState(key);
        return searchVersion === undefined ? s.state : `${s.state}@v${s.searchVersion}`;
      },
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe(searchVersion === undefined ? state : `${state}@v${searchVersion}`);
}

test("a failing version: FAILED with PARSE_ERROR → task timeline DEAD → force-close → RESOLVED and acknowledged drift", async ({
  signedIn: page,
}) => {
  const key = uniqueKey("e2e-fail");
  const shot = shooter(page);
  const reason = "Vendor PDF is corrupt; v1 stays until they resend it";

  await test.step("publish a good v1, wait until searchable, then publish a broken v2", async () => {
    await publishMarkdown(key, "Supplier terms", "Payment terms are thirty days from the invoice date.");
    await waitForState(key, "SEARCHABLE", 1);
    const v2 = await publishBrokenPdf(key, "Supplier terms (scan)");
    expect(v2).toBe(2);
  });

  await test.step("the document page says FAILED, why (PARSE_ERROR), and that v1 still serves", async () => {
    await page.goto(`/documents/${TENANT}/${key}`);
    await expect(page.getByTestId("state-badge")).toHaveAttribute("data-state", "FAILED", { timeout: 60_000 });
    await expect(page.getByTestId("last-error")).toContainText("PARSE_ERROR");
    await expect(page.getByTestId("state-explainer")).toContainText("Search still serves v1");
    await expect(page.getByTestId("search-version")).toHaveText("v1");
    await expect(page.getByTestId("index-version-row").first()).toBeVisible();
    await shot("a1-document-failed.png");
  });

  await test.step("open the failing task: its timeline ends DEAD", async () => {
    await page.getByTestId("last-error-task-link").click();
    await page.waitForURL(/\/tasks\/\d+$/);
    await expect(page.getByRole("heading", { level: 1, name: /^Task #\d+$/ })).toBeVisible();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "DEAD");
    await expect(page.getByTestId("task-version")).toHaveText("v2");
    const timeline = page.getByTestId("task-timeline");
    await expect(timeline.locator('[data-testid="timeline-event"][data-kind="CREATED"]')).toBeVisible();
    await expect(timeline.locator('[data-testid="timeline-event"][data-kind="FAILED"]')).toContainText("PARSE_ERROR");
    await expect(timeline.locator('[data-testid="timeline-event"][data-kind="DEAD"]')).toBeVisible();
    await shot("a2-task-dead-timeline.png");
  });

  await test.step("force-close it with a reason (keyboard), after the empty reason is refused", async () => {
    const open = page.getByTestId("task-force-done");
    await open.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: /Force-close task/ });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("action-effect")).toContainText("RESOLVED");
    await expect(dialog.getByTestId("action-effect")).toContainText("not a success");
    // The reason box gets focus first.
    await expect(dialog.getByTestId("action-reason")).toBeFocused();
    await dialog.getByTestId("force-done-confirm").click();
    await expect(dialog.getByText("Give a reason of at least 3 characters.")).toBeVisible();
    await expect(dialog.getByTestId("action-reason")).toHaveAttribute("aria-invalid", "true");
    await dialog.getByTestId("action-reason").fill(reason);
    await shot("a3-force-done-dialog.png");
    await dialog.getByTestId("force-done-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: "RESOLVED" })).toBeVisible();
  });

  await test.step("the task is RESOLVED (not shown as a success) with the operator event on its timeline", async () => {
    const status = page.getByTestId("task-status");
    await expect(status).toHaveAttribute("data-status", "RESOLVED");
    await expect(status).not.toHaveClass(/pill--ok/);
    await expect(page.getByTestId("task-explainer")).toContainText("Not a success");
    await expect(page.locator('[data-testid="timeline-event"][data-kind="OPERATOR_FORCE_DONE"]')).toContainText(reason);
    await expect(page.getByTestId("task-retry")).toHaveCount(0);
    await shot("a4-task-resolved.png");
  });

  await test.step("the document shows the drift as acknowledged: v2 force-closed, v1 still serves", async () => {
    await page.getByTestId("task-document-link").click();
    await page.waitForURL(`**/documents/${TENANT}/${key}`);
    const note = page.getByTestId("drift-acknowledged");
    await expect(note).toBeVisible();
    await expect(note).toContainText("Drift acknowledged");
    await expect(note).toContainText("v2 was force-closed");
    await expect(note).toContainText(reason);
    await expect(note).toContainText("v1 still serves");
    await expect(page.getByTestId("state-badge")).toHaveAttribute("data-state", "SEARCHABLE");
    await expect(page.locator(`[data-testid="task-row"][data-status="RESOLVED"]`)).toBeVisible();
    await shot("a5-document-drift-acknowledged.png");
  });
});

test("overview shows the KPI cards and the error breakdown chart", async ({ signedIn: page }) => {
  const key = uniqueKey("e2e-ovw");
  const shot = shooter(page);
  await publishBrokenPdf(key, "Overview failure");
  await waitForState(key, "FAILED");

  await page.getByRole("link", { name: "Overview", exact: true }).click();
  await page.waitForURL(/\/overview$/);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

  for (const id of [
    "kpi-due",
    "kpi-oldest-due",
    "kpi-running",
    "kpi-leases",
    "kpi-dead",
    "kpi-drift",
    "kpi-latency",
    "kpi-reuse",
    "kpi-workers",
  ]) {
    await expect(page.getByTestId(id)).toBeVisible();
  }
  // A DEAD task exists, so the DEAD card warns (in text too, not only colour).
  const dead = page.getByTestId("kpi-dead");
  await expect(dead).toHaveAttribute("data-tone", "danger");
  await expect(dead).toContainText("Action needed");
  await expect(page.getByTestId("kpi-drift")).toContainText("acknowledged");
  await expect(page.getByTestId("kpi-workers")).toHaveAttribute("data-tone", "ok");
  await expect(page.getByTestId("fleet-health")).toContainText("DEAD");

  const chart = page.getByTestId("chart-errors");
  await expect(chart).toBeVisible();
  await expect(chart).not.toHaveAttribute("data-empty", "true");
  await expect(chart).toContainText("PARSE_ERROR");
  await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
  // History-based charts either draw or explain why they are empty.
  for (const id of ["chart-backlog", "chart-oldest-due", "chart-latency", "chart-drift"]) {
    const c = page.getByTestId(id);
    await expect(c).toBeVisible();
    if ((await c.getAttribute("data-empty")) === "true")
      await expect(c).toContainText(/Charts fill in|Fills in as documents finish/);
  }
  await shot("b1-overview.png");
});

test("tasks page filtered to DEAD lists the failing task", async ({ signedIn: page }) => {
  const key = uniqueKey("e2e-dead");
  const shot = shooter(page);
  await publishBrokenPdf(key, "Dead task");
  await waitForState(key, "FAILED");

  await page.getByRole("link", { name: "Tasks", exact: true }).click();
  await page.waitForURL(/\/tasks$/);
  await expect(page.getByTestId("bulk-retry-open")).toBeDisabled();

  await page.getByLabel("Status").selectOption("DEAD");
  await expect(page).toHaveURL(/[?&]status=DEAD/);
  await page.getByLabel("Error code").selectOption("PARSE_ERROR");
  await expect(page).toHaveURL(/[?&]errorCode=PARSE_ERROR/);

  const row = page.locator(`[data-testid="task-row"][data-key="${key}"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute("data-status", "DEAD");
  await expect(row).toContainText("PARSE_ERROR");
  await expect(row).toContainText("1 / ");
  // Every row shown matches the filter.
  const statuses = await page
    .getByTestId("task-row")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-status")));
  expect(new Set(statuses)).toEqual(new Set(["DEAD"]));

  // Bulk retry is offered now, and its confirmation states the effect; cancel leaves everything as is.
  const bulk = page.getByTestId("bulk-retry-open");
  await expect(bulk).toBeEnabled();
  await bulk.click();
  const dialog = page.getByRole("dialog", { name: "Retry DEAD tasks in bulk" });
  await expect(dialog.getByTestId("bulk-retry-scope")).toContainText("all DEAD tasks with error PARSE_ERROR");
  await expect(dialog.getByTestId("bulk-retry-scope")).toContainText("PENDING with a fresh attempt budget");
  await shot("c1-bulk-retry-dialog.png");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toHaveAttribute("data-status", "DEAD");

  await row.getByTestId("task-link").click();
  await page.waitForURL(/\/tasks\/\d+$/);
  await expect(page.getByTestId("task-document-link")).toHaveText(key);
  await page.goBack();
  await expect(row).toBeVisible();
  await shot("c2-tasks-dead.png");
});

test("rollback: search serves v1 again after rolling back from the document page", async ({ signedIn: page }) => {
  const key = uniqueKey("e2e-roll");
  const nonce = key.split("-").slice(-2).join(" ");
  const v1Sentence = `Albatrosses catalogue saffron harbour bells every equinox ${nonce}.`;
  const v2Sentence = `Wombats rehearse cobalt symphonies beneath frozen waterfalls ${nonce}.`;
  const shot = shooter(page);

  await test.step("publish v1 and v2 and wait until v2 is searchable", async () => {
    await publishMarkdown(key, "Roll notes", v1Sentence);
    await waitForState(key, "SEARCHABLE", 1);
    await publishMarkdown(key, "Roll notes", v2Sentence);
    await waitForState(key, "SEARCHABLE", 2);
  });

  await test.step("roll back to v1 from the document page", async () => {
    await page.goto(`/documents/${TENANT}/${key}`);
    await expect(page.getByTestId("search-version")).toHaveText("v2");
    await expect(page.locator('[data-testid="index-version-row"][data-version="1"]')).toHaveAttribute(
      "data-status",
      "RETIRED",
    );
    await page.getByTestId("action-rollback").click();
    const dialog = page.getByRole("dialog", { name: `Roll back ${key}` });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Version to serve").selectOption("1");
    await expect(dialog.getByTestId("rollback-effect")).toContainText("Search will serve v1");
    await expect(dialog.getByTestId("rollback-effect")).toContainText("pinned");
    await dialog.getByTestId("action-reason").fill("v2 has the wrong figures");
    await shot("d1-rollback-dialog.png");
    await dialog.getByTestId("rollback-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `Search now serves ${key} v1` })).toBeVisible();
    await expect(page.getByTestId("search-version")).toHaveText("v1");
    await expect(page.getByTestId("pin-note")).toContainText("Pinned to v1");
    await expect(page.locator('[data-testid="index-version-row"][data-version="1"]')).toHaveAttribute(
      "data-status",
      "ACTIVE",
    );
    await shot("d2-rolled-back.png");
  });

  await test.step("search returns v1's sentence, labelled v1", async () => {
    await page.getByRole("link", { name: "Search", exact: true }).click();
    await page.waitForURL("**/search");
    await page.getByLabel("Tenant").fill(TENANT);
    await page.getByLabel("Query").fill(v1Sentence);
    await page.getByTestId("search-submit").click();
    const first = page.getByTestId("search-hit").first();
    await expect(first).toBeVisible({ timeout: 20_000 });
    await expect(first).toHaveAttribute("data-document-key", key);
    await expect(first).toHaveAttribute("data-version", "1");
    await expect(first).toContainText("v1");
    await expect(first).toContainText("Albatrosses catalogue saffron");
    await expect(page.locator(`[data-testid="search-hit"][data-document-key="${key}"][data-version="2"]`)).toHaveCount(
      0,
    );
    await shot("d3-search-v1.png");
  });
});

test("no or invalid token: the API answers 401 and the dashboard asks to sign in", async ({ page, request }) => {
  const shot = shooter(page);
  // `request` carries no session cookie.
  for (const path of ["/api/v1/overview", "/api/v1/tasks", "/api/v1/workers", "/api/v1/audit"]) {
    const none = await request.get(path);
    expect(none.status(), path).toBe(401);
    expect((await none.json()).error.code).toBe("UNAUTHORIZED");
    const bad = await request.get(path, { headers: { authorization: "Bearer not-a-real-token-000000000000" } });
    expect(bad.status(), path).toBe(401);
  }
  const retry = await request.post("/api/v1/tasks/retry", {
    headers: { authorization: "Bearer not-a-real-token-000000000000" },
    data: { status: "DEAD" },
  });
  expect(retry.status()).toBe(401);
  const force = await request.post("/api/v1/tasks/1/force-done", { data: { reason: "no auth" } });
  expect(force.status()).toBe(401);

  await page.goto("/overview");
  await page.waitForURL(/\/signin/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await shot("e1-signin-required.png");
});
