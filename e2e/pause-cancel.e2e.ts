import { expect, shooter, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion, readDocument } from "./support/api";

// Queue pauses and task cancel, as an operator meets them: a tenant paused from the Overview (a
// fresh publish waits and says so), resumed (the document becomes searchable), and a waiting task
// cancelled with a reason that shows on its timeline. Keyboard only inside the dialogs.

/** Publishes a new version (a task is queued: the content is new) and returns its task's id. */
async function publish(tenant: string, key: string, content: string): Promise<string> {
  const r = await publishVersion(tenant, key, { content });
  expect(r.taskId, `publish ${tenant}/${key} queued no task`).not.toBeNull();
  return String(r.taskId);
}

async function documentState(tenant: string, key: string): Promise<string> {
  const { doc, status } = await readDocument(tenant, key);
  return doc ? `${doc.state}@v${doc.searchVersion}` : `HTTP_${status}`;
}

/** Resume every pause of `tenant` (cleanup: a failed run must not leave the tenant held). */
async function resumeAll(tenant: string): Promise<void> {
  const client = apiClient();
  const { data } = await client.GET("/api/v1/pauses");
  for (const p of data?.items ?? []) {
    if (p.tenant === tenant) await client.DELETE("/api/v1/pauses/{id}", { params: { path: { id: p.id } } });
  }
}

test("pause a tenant, see its work wait as paused, resume it; cancel a waiting task with a reason", async ({
  signedIn: page,
}) => {
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-pause").slice(0, 60);
  const key = `handbook-${tenant.slice(-6)}`;
  const other = `draft-${tenant.slice(-6)}`;
  try {
    await test.step("a document of the tenant is searchable at v1", async () => {
      await publish(tenant, key, "# Handbook\n\nReturns are accepted within thirty days.");
      await expect
        .poll(() => documentState(tenant, key), { timeout: 90_000, intervals: [250, 500, 1000] })
        .toBe("SEARCHABLE@v1");
    });

    await test.step("pause the tenant from the Overview, by keyboard", async () => {
      await page.goto("/overview");
      await expect(page.getByTestId("pauses-empty")).toBeVisible();
      await page.getByTestId("pause-open").focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByTestId("pause-dialog");
      await expect(dialog).toBeVisible();
      await dialog.getByTestId("pause-tenant").selectOption(tenant);
      await dialog.getByTestId("pause-reason").fill("Provider quota for this tenant is spent until midnight");
      await shot("01-pause-dialog.png");
      await dialog.getByTestId("pause-reason").press("Tab");
      await dialog.getByTestId("pause-confirm").focus();
      await page.keyboard.press("Enter");
      await expect(dialog).toBeHidden();
      const item = page.locator(`[data-testid="pause-item"][data-target="${tenant}"]`);
      await expect(item).toContainText(`tenant ${tenant}`);
      await expect(item).toContainText("Provider quota for this tenant is spent until midnight");
      await shot("02-overview-paused.png");
    });

    let waiting = "";
    await test.step("a new version published meanwhile waits, shown as paused", async () => {
      waiting = await publish(tenant, key, "# Handbook\n\nReturns are accepted within sixty days.");
      await page.goto(`/tasks?tenant=${tenant}`);
      const row = page.locator(`[data-testid="task-row"][data-task-id="${waiting}"]`);
      await expect(row).toHaveAttribute("data-status", "PENDING");
      await expect(row.getByTestId("task-paused")).toBeVisible();
      // Nothing takes it while the pause stands.
      await page.waitForTimeout(3000);
      expect(await documentState(tenant, key)).toBe("UPDATING@v1");
      await page.reload();
      await expect(page.locator(`[data-testid="task-row"][data-task-id="${waiting}"]`)).toHaveAttribute(
        "data-status",
        "PENDING",
      );
      await shot("03-tasks-paused.png");
      await page.goto(`/tasks/${waiting}`);
      await expect(page.getByTestId("task-paused")).toContainText(`tenant ${tenant}`);
      await shot("04-task-paused-detail.png");
    });

    let doomed = "";
    await test.step("cancel another waiting task with a reason; the timeline and the document show it", async () => {
      doomed = await publish(tenant, other, "# Draft\n\nNot meant to be published.");
      await page.goto(`/tasks/${doomed}`);
      await page.getByTestId("task-cancel").focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByTestId("cancel-dialog");
      await expect(dialog).toBeVisible();
      await page.keyboard.type("Published by mistake: draft, not for search");
      await shot("05-cancel-dialog.png");
      await dialog.getByTestId("cancel-confirm").focus();
      await page.keyboard.press("Enter");
      await expect(dialog).toBeHidden();
      const event = page.locator('[data-testid="timeline-event"][data-kind="OPERATOR_CANCEL"]');
      await expect(event).toContainText("Published by mistake: draft, not for search");
      await expect(page.getByTestId("task-explainer")).toContainText("Cancelled before it ran");
      await shot("06-task-cancelled-timeline.png");
      expect(await documentState(tenant, other)).toBe("FAILED@vnull");
    });

    await test.step("select two waiting tasks on the list and cancel both; retry them back from the selection", async () => {
      const ids = [
        await publish(tenant, `bulk-a-${tenant.slice(-6)}`, "# A\n\nFirst."),
        await publish(tenant, `bulk-b-${tenant.slice(-6)}`, "# B\n\nSecond."),
      ];
      await page.goto(`/tasks?tenant=${tenant}`);
      for (const id of ids)
        await page.locator(`[data-testid="task-row"][data-task-id="${id}"]`).getByTestId("task-select").check();
      await expect(page.getByTestId("selection-bar")).toContainText("2 selected");
      await page.getByTestId("bulk-cancel-selected").click();
      await page.getByTestId("bulk-selected-reason").fill("Wrong batch uploaded");
      await shot("07-bulk-cancel-dialog.png");
      await page.getByTestId("bulk-selected-confirm").click();
      for (const id of ids)
        await expect(page.locator(`[data-testid="task-row"][data-task-id="${id}"]`)).toHaveAttribute(
          "data-status",
          "CANCELLED",
        );
      await expect(page.getByTestId("selection-bar")).toHaveCount(0);
      for (const id of ids)
        await page.locator(`[data-testid="task-row"][data-task-id="${id}"]`).getByTestId("task-select").check();
      await page.getByTestId("bulk-retry-selected").click();
      await page.getByTestId("bulk-selected-confirm").click();
      for (const id of ids)
        await expect(page.locator(`[data-testid="task-row"][data-task-id="${id}"]`)).toHaveAttribute(
          "data-status",
          "PENDING",
        );
      await shot("08-bulk-retried.png");
    });

    await test.step("resume from the Overview: the waiting version becomes searchable", async () => {
      await page.goto("/overview");
      const item = page.locator(`[data-testid="pause-item"][data-target="${tenant}"]`);
      await item.getByTestId("pause-resume").click();
      await expect(item).toHaveCount(0);
      await expect
        .poll(() => documentState(tenant, key), { timeout: 90_000, intervals: [250, 500, 1000] })
        .toBe("SEARCHABLE@v2");
      // The cancelled task stays cancelled: resuming does not bring it back.
      expect(await documentState(tenant, other)).toBe("FAILED@vnull");
      await page.goto(`/documents/${tenant}/${key}`);
      await shot("09-resumed-searchable.png");
    });
  } finally {
    await resumeAll(tenant);
  }
});
