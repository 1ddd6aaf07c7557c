import type { Page } from "@playwright/test";
import { unwrap } from "../lib/client";
import { attachShot, expect, shooter, signIn, signOut, test, uniqueKey } from "./fixtures";
import { recordBrowserAnswer } from "./support/contract";
import { apiClient } from "./support/api";
import { FAKE_OIDC } from "./services/settings";

/** From our sign-in page (opened with next=/tasks unless already there) through the provider's page and back. */
async function ssoSignIn(page: Page, email: string): Promise<void> {
  if (!new URL(page.url()).pathname.startsWith("/signin")) await page.goto("/signin?next=/tasks");
  await page.getByRole("link", { name: `Sign in with ${FAKE_OIDC.displayName}` }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Fake identity provider" })).toBeVisible();
  expect(page.url().startsWith(`${FAKE_OIDC.issuer}/authorize?`)).toBe(true);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
}

test("single sign-on: a person an admin added comes in through the provider; an admin can end their session; a stranger is told why not", async ({
  page,
  browser,
}) => {
  const shot = shooter(page);
  const email = `${uniqueKey("sso")}@corp.example`;

  await test.step("an admin adds the person as an SSO-only operator", async () => {
    await unwrap(apiClient().POST("/api/v1/admin/users", { body: { email, role: "operator", tenants: ["*"] } }));
  });

  await test.step("they sign in through the provider and land on the page they asked for", async () => {
    await page.goto("/signin?next=/tasks");
    await expect(page.getByRole("link", { name: `Sign in with ${FAKE_OIDC.displayName}` })).toBeVisible();
    await shot("01-signin-with-sso.png");
    await ssoSignIn(page, email);
    await page.waitForURL(/\/tasks$/);
    await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
    await expect(page.getByTestId("whoami")).toContainText(email);
    await expect(page.getByTestId("whoami")).toContainText("operator");
    await shot("02-signed-in-through-sso.png");
  });

  await test.step("an admin sees the open session and signs them out everywhere", async () => {
    const adminContext = await browser.newContext();
    adminContext.on("response", recordBrowserAnswer);
    const admin = await adminContext.newPage();
    try {
      await signIn(admin);
      await admin.goto("/admin");
      const row = admin.locator(`[data-testid="user-row"][data-email="${email}"]`);
      await expect(row.getByText("SSO", { exact: true })).toBeVisible();
      await expect(row.getByTestId("user-sessions")).toContainText("1");
      await row.getByTestId("user-sign-out").click();
      const dialog = admin.getByTestId("user-signout-dialog");
      await expect(dialog).toContainText("Ends the open session");
      await attachShot(admin, "03-admin-ends-session.png");
      await dialog.getByTestId("user-signout-confirm").click();
      await expect(row.getByTestId("user-sessions")).toContainText("0");
    } finally {
      await adminContext.close();
    }
  });

  await test.step("their next page load goes to the sign-in page, which remembers where they were", async () => {
    await page.goto("/tasks?status=DEAD");
    await page.waitForURL(/\/signin\?next=%2Ftasks%3Fstatus%3DDEAD$/);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  });

  await test.step("they come back in, to the same filtered view; signing out ends that session too", async () => {
    await ssoSignIn(page, email);
    await page.waitForURL(/\/tasks\?status=DEAD$/);
    await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
    await signOut(page);
  });

  await test.step("someone without an account is sent back with the reason", async () => {
    await page.goto("/signin?next=/tasks");
    await ssoSignIn(page, `${uniqueKey("stranger")}@corp.example`);
    await page.waitForURL(/\/signin\?error=OIDC_NO_ACCOUNT/);
    const alert = page.getByTestId("sso-error");
    await expect(alert).toHaveAttribute("data-code", "OIDC_NO_ACCOUNT");
    await expect(alert).toContainText("There is no Indexwright account for your email");
    await shot("04-sso-no-account.png");
  });
});
