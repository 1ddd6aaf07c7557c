import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, shooter, switchTheme, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion, waitSearchable } from "./support/api";

// Retrieval evaluation as a maintainer uses it from the dashboard (docs/evaluation.md): upload a
// golden set, start a run and watch it wait for a worker and finish, read its figures and the
// history chart, ask "why?" of a miss (the why API, live), and on the Migrations page see the
// tenant's two spaces side by side on the set — both evaluated from there — with the per-query
// wins and losses, linking back to the run on the Evaluation page.

/** The second space: the built-in local embedder at 256 dimensions (as e2e/migrations.e2e.ts). */
const SPACE = "local-256";

/** axe (WCAG 2.1 A/AA) in the light and the dark theme: no serious or critical finding (as e2e/migrations.e2e.ts). */
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

/** Registers SPACE unless an earlier test of this run did. */
async function ensureSpace(): Promise<void> {
  const { response, error } = await apiClient().POST("/api/v1/admin/embedding-spaces", {
    body: { name: SPACE, provider: "local", dimensions: 256 },
  });
  if (response.status === 201) return;
  expect(response.status, JSON.stringify(error)).toBe(409);
  expect((error as { error?: { code?: string } })?.error?.code).toBe("SPACE_NAME_TAKEN");
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

test("push a golden set, run it, read the figures, ask why a document was missed, compare two spaces", async ({
  signedIn: page,
}) => {
  test.setTimeout(360_000);
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-eval").slice(0, 60);
  const nonce = tenant.slice(-6);
  const docs = [
    { key: `returns-${nonce}`, text: `Walruses notarise saffron umbrellas every equinox ${nonce}.` },
    { key: `shipping-${nonce}`, text: `Ferrets calibrate pewter kettles beneath the aqueduct ${nonce}.` },
    { key: `warranty-${nonce}`, text: `Ibises catalogue amber pendulums during the regatta ${nonce}.` },
  ];
  // A key no document has: the run diagnoses it UNKNOWN, a miss to ask "why?" about.
  const gone = `renamed-${nonce}`;
  const set = [
    { query: `walruses notarise saffron umbrellas ${nonce}`, relevant: [docs[0].key] },
    { query: `ferrets calibrate pewter kettles ${nonce}`, relevant: [docs[1].key] },
    { query: `ibises catalogue amber pendulums ${nonce}`, relevant: [docs[2].key, gone] },
  ];

  try {
    await test.step("seed: three searchable documents in a fresh tenant", async () => {
      for (const d of docs) await publishVersion(tenant, d.key, { title: d.key, content: `# ${d.key}\n\n${d.text}\n` });
      for (const d of docs) await waitSearchable(tenant, d.key, 1);
    });

    await test.step("the Evaluation page of a tenant without a set", async () => {
      await page.goto(`/tenants/${tenant}/evaluation`);
      await expect(page.getByRole("heading", { level: 1, name: `Evaluation of ${tenant}` })).toBeVisible();
      await expect(page.getByTestId("evaluation-set")).toContainText("No set yet.");
      await expect(page.getByTestId("evaluation-history")).toHaveAttribute("data-empty", "true");
      await expect(page.getByTestId("empty-state")).toContainText("No evaluation runs");
      await shot("e1-no-set.png");
    });

    await test.step("push a set: upload a JSONL file of three queries", async () => {
      await expect(page.getByTestId("evaluation-set-upload")).toBeEnabled();
      // The button opens the hidden file input's chooser; the spec hands the input its file directly.
      await page.getByTestId("evaluation-set-input").setInputFiles({
        name: "golden.jsonl",
        mimeType: "application/x-ndjson",
        buffer: Buffer.from(set.map((q) => JSON.stringify(q)).join("\n") + "\n"),
      });
      const card = page.getByTestId("evaluation-set");
      await expect(card.getByRole("status").filter({ hasText: "Saved as version 1." })).toBeVisible();
      await expect(card).toContainText("Version 1: 3 queries, by ");
      await expectAccessible(page, "evaluation, set saved");
      await shot("e2-set-pushed.png");
    });

    await test.step("start a run: it waits for a worker, shows its progress, then its figures", async () => {
      const run = page.getByTestId("evaluation-run");
      await run.getByLabel("Search mode").selectOption("hybrid");
      await run.getByRole("button", { name: "Evaluate the active space" }).click();
      // A worker's maintenance (every 10 s) claims it: until then it waits, with its progress bar.
      const status = run.getByRole("status");
      await expect(status).toContainText(/Run #\d+ is (waiting for a worker|running)/);
      await expect(status.getByRole("progressbar", { name: "Evaluation progress" })).toHaveAttribute(
        "aria-valuemax",
        "3",
      );
      await expect(run.getByRole("button", { name: "Evaluate the active space" })).toBeDisabled();
      await shot("e3-run-waiting.png");
      const row = page.getByTestId("evaluation-runs").locator("tbody tr").first();
      await expect(row).toContainText("DONE", { timeout: 60_000 });
      await expect(status).toHaveCount(0);
      // Two of three queries find everything; the third finds one of its two documents.
      await expect(row.locator("td").nth(2)).not.toHaveText("—");
      await expect(row.locator("td").nth(3)).toHaveText("0.833"); // recall@10: (1 + 1 + 0.5) / 3
    });

    await test.step("the history chart draws the run", async () => {
      const chart = page.getByTestId("evaluation-history");
      await expect(chart).not.toHaveAttribute("data-empty", "true");
      await expect(chart).toContainText(/latest #\d+ \S+ hybrid: nDCG@10 [0-9.]+, recall@10 0\.833, MRR@10 [0-9.]+/);
      await expect(chart.locator(".recharts-line")).toHaveCount(3);
      await shot("e4-figures-history.png");
    });

    await test.step("open a miss's diagnosis: why is the renamed key not found?", async () => {
      const detail = page.getByTestId("evaluation-detail");
      const miss = detail.locator(`[data-testid="evaluation-miss"][data-key="${gone}"]`);
      await expect(miss).toContainText("UNKNOWN");
      const why = miss.getByTestId("evaluation-why");
      await expect(why).toHaveAttribute("aria-expanded", "false");
      await why.click();
      await expect(why).toHaveAttribute("aria-expanded", "true");
      const panel = detail.getByTestId("evaluation-why-panel");
      await expect(panel.getByRole("heading")).toContainText(`Why isn’t ${gone} in the first 10`);
      await expect(panel.getByTestId("evaluation-why-diagnosis")).toHaveAttribute("data-stage", "UNKNOWN");
      await expect(panel).toContainText("in the active space");
      await expectAccessible(page, "evaluation, a miss's diagnosis");
      await shot("e5-why.png");
      await why.click();
      await expect(panel).toHaveCount(0);
    });

    await test.step("the Migrations page shows both spaces side by side and evaluates the candidate", async () => {
      await ensureSpace();
      const client = apiClient();
      const { data: mig, response } = await client.POST("/api/v1/tenants/{tenant}/migrations", {
        params: { path: { tenant } },
        body: { space: SPACE, reason: "e2e: compare the spaces on the golden set" },
      });
      expect(response.status, JSON.stringify(mig)).toBe(202);
      await expect
        .poll(
          async () =>
            (
              await client.GET("/api/v1/tenants/{tenant}/migrations/{id}", {
                params: { path: { tenant, id: mig!.id } },
              })
            ).data?.state,
          { timeout: 120_000, intervals: [1000] },
        )
        .toBe("READY");
      await page.goto(`/tenants/${tenant}/migrations`);
      const section = page.getByTestId("migration-panel").getByTestId("migration-evaluation");
      await expect(section).toBeVisible();
      const from = section.getByTestId("migration-evaluation-from");
      const to = section.getByTestId("migration-evaluation-to");
      await expect(from.getByTestId("evaluation-recall")).toHaveText("0.833");
      await expect(to).toContainText("No finished run on this space.");
      await section.getByTestId("migration-evaluate-both").click();
      await expect(to.getByTestId("evaluation-ndcg")).toBeVisible({ timeout: 60_000 });
      await expect(to).toHaveAttribute("data-space", SPACE);
      await expect(from.getByTestId("evaluation-ndcg")).toBeVisible();
      await expect(section.getByTestId("migration-evaluation-changes")).toBeVisible();
      await expect(section.getByTestId("migration-evaluation-wins")).toBeVisible();
      await expect(section.getByTestId("migration-evaluation-losses")).toBeVisible();
      await expectAccessible(page, "migration, both spaces evaluated");
      await shot("e6-side-by-side.png");
      const runId = await to.getAttribute("data-run-id");
      expect(runId).toMatch(/^\d+$/);
      await to.getByRole("link", { name: `Run #${runId}` }).click();
      await page.waitForURL(`**/tenants/${tenant}/evaluation?run=${runId}`);
      await expect(page.getByTestId("evaluation-detail").getByRole("heading", { level: 2 })).toContainText(
        `Run #${runId}: ${SPACE} · hybrid`,
      );
      await shot("e7-candidate-run.png");
    });
  } finally {
    await closeMigrations(tenant);
  }
});
