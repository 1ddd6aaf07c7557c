import type { Page } from "@playwright/test";
import { unwrap, type operations } from "../lib/client";
import { expect, shooter, signInWithPassword, signOut, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion, readDocument, type PublishBody } from "./support/api";
const PASSWORD = "amber-meadow-lantern-73";

async function publish(tenant: string, key: string, data: PublishBody): Promise<void> {
  await publishVersion(tenant, key, data);
}

async function waitSearchable(tenant: string, key: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const { doc, status } = await readDocument(tenant, key);
        return doc ? doc.state : `HTTP_${status}`;
      },
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe("SEARCHABLE");
}

async function createUser(body: operations["createUser"]["requestBody"]["content"]["application/json"]): Promise<void> {
  await unwrap(apiClient().POST("/api/v1/admin/users", { body }));
}

function nav(page: Page) {
  return page.getByRole("navigation", { name: "Main" });
}

test("a tenant-limited viewer searches only as themselves; an operator searches as group:hr and it is audited", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-trust");
  const publicKey = uniqueKey("handbook");
  const hrKey = uniqueKey("salary-bands");
  const nonce = tenant.split("-").slice(-1)[0];
  const viewer = `${uniqueKey("viewer")}@example.com`;
  const operator = `${uniqueKey("operator")}@example.com`;
  // Both documents share words with the query; with two documents in the tenant, any allowed one is in the top 10.
  const query = `cafeteria salary bands handbook ${nonce}`;
  const searchUrl = (extra = "") => `/search?tenant=${tenant}&q=${encodeURIComponent(query)}${extra}`;
  const hit = (key: string) => page.locator(`[data-testid="search-hit"][data-document-key="${key}"]`);

  await test.step("seed: one public document and one only group:hr may read, both searchable", async () => {
    await publish(tenant, publicKey, {
      title: "Staff handbook",
      contentType: "text/markdown",
      content: `# Staff handbook\n\nThe cafeteria opens at eight; the handbook lists salary bands elsewhere ${nonce}.\n`,
    });
    await publish(tenant, hrKey, {
      title: "Salary bands",
      contentType: "text/markdown",
      content: `# Salary bands\n\nSalary bands for every role, reviewed by HR each spring ${nonce}.\n`,
      acl: ["group:hr"],
    });
    await waitSearchable(tenant, publicKey);
    await waitSearchable(tenant, hrKey);
  });

  await test.step("seed: a viewer and an operator, both limited to the tenant, in no groups", async () => {
    await createUser({ email: viewer, password: PASSWORD, role: "viewer", tenants: [tenant] });
    await createUser({ email: operator, password: PASSWORD, role: "operator", tenants: [tenant] });
  });

  await test.step("the viewer sees who they are, and no fleet-wide pages", async () => {
    await signInWithPassword(page, viewer, PASSWORD);
    const whoami = page.getByTestId("whoami");
    await expect(whoami).toContainText(`user:${viewer}`);
    await expect(whoami).toContainText("viewer");
    await expect(page.getByTestId("whoami-tenants")).toContainText(`tenant ${tenant}`);
    await expect(nav(page).getByRole("link", { name: "Workers" })).toHaveCount(0);
    await expect(page.getByTestId("scope-note")).toContainText(
      "Fleet-wide charts and workers are shown to all-tenant accounts",
    );
    await expect(page.getByTestId("chart-backlog")).toHaveCount(0);
    await expect(page.getByTestId("kpi-workers")).toHaveCount(0);
    await shot("trust-01-viewer-overview.png");

    await page.goto("/workers");
    await expect(page.getByRole("heading", { level: 1, name: "Workers" })).toBeVisible();
    const refusal = page.getByTestId("fleet-scope-required");
    await expect(refusal).toContainText("FLEET_SCOPE_REQUIRED");
    await expect(refusal).toContainText(`tenant ${tenant}`);
    await expect(page.getByTestId("worker-row")).toHaveCount(0);
    await shot("trust-02-viewer-workers-refused.png");
  });

  await test.step("the viewer's search finds the public document only, searching as themselves", async () => {
    await page.goto(searchUrl());
    await expect(page.getByRole("heading", { level: 1, name: "Search" })).toBeVisible();
    await expect(hit(publicKey)).toBeVisible({ timeout: 20_000 });
    await expect(hit(hrKey)).toHaveCount(0);
    await expect(page.getByTestId("searched-as")).toContainText(`Searching as user:${viewer}`);
    await expect(page.getByTestId("searched-as-audited")).toHaveCount(0);
    // Nothing to widen the search with: no Principals field, only who they search as.
    await expect(page.getByTestId("search-principals")).toHaveCount(0);
    await expect(page.getByLabel("Principals")).toHaveCount(0);
    await expect(page.getByTestId("search-as-own")).toContainText(`You search as user:${viewer}`);
    await shot("trust-03-viewer-search.png");
  });

  await test.step("a crafted ?principals=group:hr is refused and explained, with no hits", async () => {
    await page.goto(searchUrl("&principals=group:hr"));
    const refused = page.getByTestId("principals-refused");
    await expect(refused).toBeVisible({ timeout: 20_000 });
    await expect(refused).toContainText("PRINCIPALS_NOT_ALLOWED");
    await expect(refused).toContainText("You can search only as yourself");
    await expect(refused).toContainText("group:hr");
    await expect(page.getByTestId("search-hit")).toHaveCount(0);
    await shot("trust-04-viewer-widening-refused.png");

    await refused.getByTestId("search-as-self").click();
    await expect(page).not.toHaveURL(/principals=/);
    await expect(hit(publicKey)).toBeVisible({ timeout: 20_000 });
    await expect(hit(hrKey)).toHaveCount(0);
  });

  await test.step("the operator searches as group:hr: the HR document is found, and the page says it is audited", async () => {
    await signOut(page);
    await signInWithPassword(page, operator, PASSWORD);
    await expect(page.getByTestId("whoami")).toContainText("operator");
    await nav(page).getByRole("link", { name: "Search", exact: true }).click();
    await page.waitForURL("**/search");
    await page.getByLabel("Tenant").fill(tenant);
    await page.getByLabel("Query").fill(query);
    await expect(page.getByTestId("audit-note")).toHaveCount(0);
    await page.getByLabel("Principals").fill("group:hr");
    await expect(page.getByTestId("audit-note")).toContainText("This search is recorded in the audit log");
    await page.getByTestId("search-submit").click();

    await expect(page).toHaveURL(/[?&]principals=group%3Ahr/);
    await expect(hit(hrKey)).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("searched-as")).toContainText("Searching as group:hr");
    await expect(page.getByTestId("searched-as-audited")).toBeVisible();
    await expect(page.getByTestId("audit-note")).toBeVisible();
    await shot("trust-05-operator-search-as-hr.png");
  });

  await test.step("a link that carries principals waits for the operator to confirm: following it writes no audit row", async () => {
    await page.goto(searchUrl("&principals=group:hr"));
    const confirm = page.getByTestId("confirm-search-as");
    await expect(confirm).toContainText("recorded in the audit log under your name");
    await expect(hit(hrKey)).toHaveCount(0);
    await shot("trust-05b-operator-confirm-link.png");
  });

  await test.step("the Audit page shows the operator's search.as_principals entry (one: the link did not add another)", async () => {
    await nav(page).getByRole("link", { name: "Audit", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
    const row = page
      .locator('[data-testid="audit-row"][data-action="search.as_principals"]')
      .filter({ hasText: `user:${operator}` });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(tenant);
    await expect(row).toContainText("group:hr");
    await shot("trust-06-operator-audit.png");
  });
});
