import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { unwrap, type Schemas } from "../lib/client";
import { expect, saveScreenshot, signIn, signInWithPassword, signOut, switchTheme, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion, readDocument, type PublishBody } from "./support/api";

const TENANT = "e2e";
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
/** base64("not a pdf"): declared as a PDF, it fails parsing (PARSE_ERROR) and its task goes DEAD. */
const NOT_A_PDF = "bm90IGEgcGRm";

type Finding = { page: string; id: string; impact: string; help: string; helpUrl: string; targets: string[] };

async function publish(key: string, data: PublishBody): Promise<void> {
  await publishVersion(TENANT, key, data);
}

async function waitForState(key: string, state: string): Promise<Schemas["DocumentDetail"]> {
  const seen: { doc?: Schemas["DocumentDetail"] } = {};
  await expect
    .poll(
      async () => {
        const r = await readDocument(TENANT, key);
        if (!r.doc) return `HTTP_${r.status}`;
        seen.doc = r.doc;
        return r.doc.state;
      },
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe(state);
  return seen.doc!;
}

/** Waits until the page has its content (no loading skeletons, no busy regions). */
async function settled(page: Page): Promise<void> {
  await expect(page.getByTestId("table-skeleton")).toHaveCount(0);
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
}

test("every page passes axe (WCAG 2.1 A/AA) in the light and the dark theme: no serious or critical violations", async ({
  page,
}) => {
  // Seeding, a dozen pages in two themes and up to a minute's wait for the chart history.
  test.setTimeout(600_000);
  const findings: Finding[] = [];
  const minor: Finding[] = [];
  const goodKey = uniqueKey("e2e-a11y");
  const badKey = uniqueKey("e2e-a11y-fail");
  const sentence = `Pelicans annotate turquoise sundials before breakfast ${goodKey.split("-").slice(-1)[0]}.`;

  let audited = 0;
  /**
   * axe in the light theme, then again with the system set to dark (prefers-color-scheme): every
   * page is checked in both, contrast included. A screenshot of each theme is kept.
   */
  async function audit(name: string): Promise<void> {
    audited += 1;
    const slug = name.replace(/[^a-z0-9]+/gi, "-");
    for (const scheme of ["light", "dark"] as const) {
      // axe must measure, and the shot show, the settled colours, not a fade between themes.
      await switchTheme(page, scheme);
      const label = scheme === "light" ? name : `${name} (dark)`;
      const file = scheme === "light" ? slug : `${slug}-dark`;
      const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
      for (const v of results.violations) {
        const f: Finding = {
          page: label,
          id: v.id,
          impact: v.impact ?? "unknown",
          help: v.help,
          helpUrl: v.helpUrl,
          targets: v.nodes.map((n) => n.target.join(" ")),
        };
        (v.impact === "serious" || v.impact === "critical" ? findings : minor).push(f);
      }
      await test.info().attach(`axe-${file}.json`, {
        body: JSON.stringify(
          {
            url: page.url(),
            colorScheme: scheme,
            violations: results.violations,
            incomplete: results.incomplete.map((i) => ({
              id: i.id,
              nodes: i.nodes.map((n) => ({
                target: n.target.join(" "),
                why: n.any.concat(n.all, n.none).map((c) => c.message),
              })),
            })),
          },
          null,
          2,
        ),
        contentType: "application/json",
      });
      await saveScreenshot(page, test.info().outputPath(`a11y-${String(audited).padStart(2, "0")}-${file}.png`));
    }
    await switchTheme(page, "light");
  }

  async function visit(name: string, url: string, heading: string | RegExp): Promise<void> {
    await test.step(name, async () => {
      await page.goto(url);
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
      await settled(page);
      await audit(name);
    });
  }

  await test.step("/signin (signed out)", async () => {
    await page.goto("/signin");
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await audit("signin");
    await page.getByRole("tab", { name: "Access token" }).click();
    await audit("signin-token-tab");
    // Single sign-on refused: the reason is shown above the sign-in choices.
    await page.goto("/signin?error=OIDC_NO_ACCOUNT");
    await expect(page.getByTestId("sso-error")).toBeVisible();
    await audit("signin-sso-refused");
  });

  let taskId = "";
  await test.step("seed one searchable and one failing document", async () => {
    await publish(goodKey, {
      title: "Accessible notes",
      contentType: "text/markdown",
      content: `# Accessible notes\n\n## Birds\n\n${sentence}\n`,
    });
    await publish(badKey, {
      title: "Broken scan",
      contentType: "application/pdf",
      contentEncoding: "base64",
      content: NOT_A_PDF,
    });
    await waitForState(goodKey, "SEARCHABLE");
    const bad = await waitForState(badKey, "FAILED");
    taskId = String(bad.tasks[0]?.taskId ?? "");
    expect(taskId).not.toBe("");
    await signIn(page);
  });

  await visit("overview", "/overview", "Overview");
  await visit("documents", "/documents", "Documents");
  await visit("document-searchable", `/documents/${TENANT}/${goodKey}`, "Accessible notes");
  await test.step("document: chunk browser open", async () => {
    await page.getByTestId("chunks-toggle").click();
    await expect(page.getByTestId("chunk").first()).toBeVisible();
    await settled(page);
    await audit("document-chunks");
  });
  await visit("document-failed", `/documents/${TENANT}/${badKey}`, "Broken scan");
  await visit("tasks", "/tasks", "Tasks");
  await visit("task-detail", `/tasks/${taskId}`, `Task #${taskId}`);
  await visit("workers", "/workers", "Workers");
  await visit("tenants", "/tenants", "Tenants");
  await visit("tenant-migrations", `/tenants/${TENANT}/migrations`, "Index space migrations");
  await visit("tenant-freshness", `/tenants/${TENANT}/freshness`, "Freshness SLO");
  await visit("index-spaces", "/spaces", "Index spaces");

  await test.step("search (with a query)", async () => {
    await page.goto(`/search?tenant=${TENANT}&q=${encodeURIComponent(sentence)}`);
    await expect(page.getByRole("heading", { level: 1, name: "Search" })).toBeVisible();
    await expect(page.getByTestId("search-hit").first()).toBeVisible({ timeout: 20_000 });
    await settled(page);
    await audit("search");
  });

  await visit("audit", "/audit", "Audit log");
  await visit("audit-filtered", "/audit?action=document.*", "Audit log");
  await visit("not-found", "/no-such-page", "This page does not exist");
  await visit("admin", "/admin", "Admin");

  await test.step("admin: create-token dialog open", async () => {
    await page.getByTestId("token-create-open").click();
    await expect(page.getByRole("dialog", { name: "Create API token" })).toBeVisible();
    await audit("admin-create-token-dialog");
    // A person's token, for a chosen user: the kind choice, the user picker and the limited role list.
    const dialog = page.getByRole("dialog", { name: "Create API token" });
    await dialog.getByTestId("token-kind-person").check();
    await dialog.getByLabel("User", { exact: true }).selectOption({ index: 1 });
    await audit("admin-create-token-dialog-person");
    await page.keyboard.press("Escape");
  });

  await test.step("documents: publish dialog open", async () => {
    await page.goto("/documents");
    await page.getByTestId("publish-open").click();
    await expect(page.getByRole("dialog", { name: "Publish document" })).toBeVisible();
    await audit("documents-publish-dialog");
  });

  await test.step("document pinned by a rollback: pin note, then the unpin dialog open", async () => {
    const pinKey = uniqueKey("e2e-a11y-pin");
    await publish(pinKey, {
      title: "Pinned notes",
      contentType: "text/markdown",
      content: "# Pinned notes\n\nFirst edition.\n",
    });
    await waitForState(pinKey, "SEARCHABLE");
    await publish(pinKey, {
      title: "Pinned notes",
      contentType: "text/markdown",
      content: "# Pinned notes\n\nSecond edition.\n",
    });
    await expect
      .poll(async () => (await waitForState(pinKey, "SEARCHABLE")).searchVersion, {
        timeout: 90_000,
        intervals: [250, 500, 1000],
      })
      .toBe(2);
    await unwrap(
      apiClient().POST("/api/v1/tenants/{tenant}/documents/{key}/rollback", {
        params: { path: { tenant: TENANT, key: pinKey } },
        body: { toVersion: 1, reason: "accessibility check" },
      }),
    );
    await visit("document-pinned", `/documents/${TENANT}/${pinKey}`, "Pinned notes");
    await expect(page.getByTestId("pin-note")).toBeVisible();
    await page.getByTestId("action-unpin").click();
    await expect(page.getByRole("dialog", { name: `Unpin ${pinKey}` })).toBeVisible();
    await audit("document-unpin-dialog");
    await page.keyboard.press("Escape");
  });

  await test.step("overview again, once the history charts (recharts) have data", async () => {
    // The worker records backlog snapshots every ~12 s at first, then each minute; a line needs two.
    await expect
      .poll(
        async () => {
          const { data } = await apiClient().GET("/api/v1/overview");
          return data?.history?.length ?? 0;
        },
        { timeout: 150_000, intervals: [2_000, 5_000] },
      )
      .toBeGreaterThanOrEqual(2);
    await page.goto("/overview");
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    await expect(page.getByTestId("chart-backlog")).not.toHaveAttribute("data-empty", "true");
    await expect(page.getByTestId("chart-backlog").locator(".recharts-surface").first()).toBeVisible();
    await settled(page);
    await audit("overview-with-charts");
  });

  await test.step("a tenant-limited viewer: own search, a refused widening, and the fleet-only Workers page", async () => {
    const email = `${uniqueKey("e2e-a11y-viewer")}@example.com`;
    const password = "lichen-harbour-compass-29";
    await unwrap(
      apiClient().POST("/api/v1/admin/users", { body: { email, password, role: "viewer", tenants: [TENANT] } }),
    );
    await signOut(page);
    await signInWithPassword(page, email, password);
    await settled(page);
    await audit("viewer-overview-tenant-scope");

    await page.goto(`/search?tenant=${TENANT}&q=${encodeURIComponent(sentence)}`);
    await expect(page.getByTestId("search-hit").first()).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("search-as-own")).toBeVisible();
    await settled(page);
    await audit("viewer-search");

    await page.goto(`/search?tenant=${TENANT}&q=${encodeURIComponent(sentence)}&principals=group:hr`);
    await expect(page.getByTestId("principals-refused")).toBeVisible({ timeout: 20_000 });
    await settled(page);
    await audit("viewer-search-refused");

    await visit("viewer-workers-fleet-only", "/workers", "Workers");
    await expect(page.getByTestId("fleet-scope-required")).toBeVisible();
  });

  const format = (list: Finding[]) =>
    list
      .map(
        (f) => `[${f.page}] ${f.id} (${f.impact}): ${f.help}\n    ${f.helpUrl}\n    targets: ${f.targets.join(" | ")}`,
      )
      .join("\n");
  if (minor.length > 0)
    console.log(`axe: ${minor.length} minor/moderate finding(s), not failing the test:\n${format(minor)}`);
  if (findings.length > 0) console.log(`axe: ${findings.length} serious/critical finding(s):\n${format(findings)}`);
  expect(findings, `serious or critical axe violations:\n${format(findings)}`).toEqual([]);
});
