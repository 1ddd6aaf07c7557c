import type { Page } from "@playwright/test";
import { expect, shooter, signIn, signInWithPassword, signOut, test, uniqueKey } from "./fixtures";
import { createUser, publishVersion, type CreateUserBody } from "./support/api";

const TENANT = "e2e";

async function openAdmin(page: Page): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin", exact: true }).click();
  await page.waitForURL(/\/admin$/);
  await expect(page.getByRole("heading", { level: 1, name: "Admin" })).toBeVisible();
}

test("admin creates a viewer token in the UI; signed in with it, the viewer can look but not act", async ({
  signedIn: page,
  context,
}) => {
  const shot = shooter(page);
  const key = uniqueKey("e2e-admin-doc");
  const tokenName = uniqueKey("viewer-bot");
  let secret = "";

  await test.step("publish a document with the admin token", async () => {
    await publishVersion(TENANT, key, {
      title: "Viewer check",
      content: "# Viewer check\n\nOnly admins and maintainers may change this.\n",
    });
  });

  await test.step("open Admin from the navigation", async () => {
    await openAdmin(page);
    await expect(page.getByRole("heading", { level: 2, name: /^API tokens/ })).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: /^Users/ })).toBeVisible();
    // The bootstrap admin user exists from the first start.
    await expect(page.locator('[data-testid="user-row"][data-email="admin@localhost"]')).toBeVisible();
    await shot("01-admin-page.png");
  });

  await test.step("create a viewer token and copy its secret from the dialog", async () => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByTestId("token-create-open").click();
    const dialog = page.getByRole("dialog", { name: "Create API token" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel("Name", { exact: true })).toBeFocused();
    // An empty name is refused in the dialog.
    await dialog.getByTestId("token-create-submit").click();
    await expect(dialog.getByText("Give the token a name.")).toBeVisible();
    await expect(dialog.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");

    await dialog.getByLabel("Name", { exact: true }).fill(tokenName);
    await expect(dialog.getByTestId("token-kind-application")).toBeChecked();
    await dialog.getByLabel("Role", { exact: true }).selectOption("viewer");
    await expect(dialog.getByText("Read only: documents, tasks, workers and search.")).toBeVisible();
    // Tenants are explicit: nothing chosen is refused, with the way out named.
    await expect(dialog.getByLabel("All tenants")).not.toBeChecked();
    await dialog.getByTestId("token-create-submit").click();
    await expect(dialog.getByText("Tick “All tenants”, or name at least one tenant.")).toBeVisible();
    await expect(dialog.getByLabel("Tenant ids, comma-separated")).toBeFocused();
    await dialog.getByLabel("All tenants").check();
    await expect(dialog.getByText("Every tenant, including ones created later.")).toBeVisible();
    await shot("02-create-token-dialog.png");
    await dialog.getByTestId("token-create-submit").click();

    const secretDialog = page.getByRole("dialog", { name: "Copy your new token" });
    await expect(secretDialog).toBeVisible();
    await expect(secretDialog.getByRole("alert")).toContainText("It will not be shown again");
    const field = secretDialog.getByTestId("token-secret");
    await expect(field).toHaveAttribute("readonly", "");
    await expect(field).toBeFocused();
    secret = await field.inputValue();
    expect(secret).toMatch(/^iw_[A-Za-z0-9_-]{20,}$/);

    await secretDialog.getByTestId("token-secret-copy").click();
    await expect(secretDialog.getByTestId("token-secret-copied")).toHaveText("Copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expect(page.getByTestId("toast").filter({ hasText: `Token “${tokenName}” created` })).toBeVisible();
    await shot("03-token-secret-once.png");

    await secretDialog.getByTestId("token-secret-done").click();
    await expect(secretDialog).toBeHidden();
    const row = page.locator(`[data-testid="token-row"][data-name="${tokenName}"]`);
    await expect(row).toHaveAttribute("data-status", "active");
    await expect(row).toHaveAttribute("data-role", "viewer");
    await expect(row).toHaveAttribute("data-kind", "application");
    await expect(row.getByTestId("tenants-all")).toHaveText("All tenants");
    await expect(row.getByTestId("token-capabilities-cell")).toHaveText("—");
    await expect(row).toContainText("never");
    await expect(row).toContainText("token:bootstrap");
    // The secret is nowhere on the page any more.
    await expect(page.getByText(secret)).toHaveCount(0);
    await shot("04-token-row.png");
  });

  await test.step("sign out, then sign in with the new viewer token", async () => {
    await signOut(page);
    await signIn(page, secret);
    await expect(page.getByTestId("whoami")).toContainText(`token:${tokenName}`);
    await expect(page.getByTestId("whoami")).toContainText("viewer");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit" })).toHaveCount(0);
    await shot("05-viewer-overview.png");
  });

  await test.step("the viewer gets no Publish button", async () => {
    await page.getByRole("link", { name: "Documents", exact: true }).click();
    await page.waitForURL(/\/documents(\?|$)/);
    await expect(page.getByRole("heading", { level: 1, name: "Documents" })).toBeVisible();
    await expect(page.locator(`[data-testid="doc-row"][data-key="${key}"]`)).toBeVisible();
    await expect(page.getByTestId("publish-open")).toHaveCount(0);
    await expect(page.getByTestId("publish-open-empty")).toHaveCount(0);
    await expect(page.getByRole("button", { name: /publish/i })).toHaveCount(0);
    await shot("06-viewer-documents.png");
  });

  await test.step("the viewer sees no enabled actions on the document page", async () => {
    await page.locator(`[data-testid="doc-row"][data-key="${key}"]`).getByRole("link", { name: key }).click();
    await page.waitForURL(`**/documents/${TENANT}/${key}`);
    await expect(page.getByRole("heading", { level: 1, name: "Viewer check" })).toBeVisible();
    await expect(page.getByTestId("actions-readonly")).toContainText("Read-only: your role (viewer)");
    await expect(page.getByTestId("document-actions")).toHaveCount(0);
    for (const id of ["action-reindex", "action-rollback", "action-delete", "task-retry", "task-force-done"]) {
      await expect(page.getByTestId(id)).toHaveCount(0);
    }
    const enabledActions = page
      .getByRole("main")
      .locator("button:enabled")
      .filter({ hasText: /reindex|roll ?back|delete|retry|force|publish|revoke/i });
    await expect(enabledActions).toHaveCount(0);
    await shot("07-viewer-document-readonly.png");
  });

  await test.step("/admin shows the viewer an 'Admins only' state", async () => {
    await page.goto("/admin");
    await expect(page.getByTestId("admin-forbidden")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Admins only" })).toBeVisible();
    await expect(page.getByTestId("admin-forbidden")).toContainText("Your role is viewer");
    await expect(page.getByTestId("tokens-section")).toHaveCount(0);
    await shot("08-viewer-admins-only.png");
  });

  await test.step("the API refuses the viewer token with 403 for publish and reindex", async () => {
    const viewer = { authorization: `Bearer ${secret}` };
    const publish = await page.request.post(`/api/v1/tenants/${TENANT}/documents/${key}/versions`, {
      headers: viewer,
      data: { title: "Nope", contentType: "text/markdown", content: "# Nope\n" },
    });
    expect(publish.status(), await publish.text()).toBe(403);
    expect((await publish.json()).error.code).toBe("FORBIDDEN");
    const reindex = await page.request.post(`/api/v1/tenants/${TENANT}/documents/${key}/reindex`, {
      headers: viewer,
      data: {},
    });
    expect(reindex.status(), await reindex.text()).toBe(403);
    expect((await reindex.json()).error.code).toBe("FORBIDDEN");
    const tokens = await page.request.get("/api/v1/admin/tokens", { headers: viewer });
    expect(tokens.status()).toBe(403);
  });

  await test.step("the admin revokes the token (with confirmation); the API then answers 401", async () => {
    await signOut(page);
    await signIn(page);
    await openAdmin(page);
    const row = page.locator(`[data-testid="token-row"][data-name="${tokenName}"]`);
    await row.getByTestId("token-revoke").click();
    const dialog = page.getByRole("dialog", { name: `Revoke token “${tokenName}”` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("action-effect")).toContainText("401 Unauthorized");
    await shot("09-revoke-dialog.png");
    await dialog.getByTestId("token-revoke-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `Token “${tokenName}” revoked` })).toBeVisible();
    await expect(row).toHaveAttribute("data-status", "revoked");
    await expect(row.getByTestId("token-revoke")).toHaveCount(0);
    await shot("10-token-revoked.png");

    const after = await page.request.get(`/api/v1/tenants/${TENANT}/documents/${key}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(after.status()).toBe(401);
  });
});

test("admin adds a user in the UI; the user signs in with email and password", async ({ signedIn: page }) => {
  const shot = shooter(page);
  const email = `${uniqueKey("e2e-user")}@example.com`;
  const password = "quiet-harbour-lantern-42";
  const newPassword = "violet-orchard-compass-17";

  await test.step("add the user through the dialog (a short password is refused first)", async () => {
    await openAdmin(page);
    await page.getByTestId("user-create-open").click();
    const dialog = page.getByRole("dialog", { name: "Add user" });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Password", { exact: true }).fill("too-short");
    await expect(dialog.getByTestId("user-password-hint")).toContainText("At least 12 characters");
    await dialog.getByTestId("user-create-submit").click();
    await expect(dialog.getByText("Use at least 12 characters (9 so far).")).toBeVisible();
    await expect(dialog.getByLabel("Password", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await dialog.getByLabel("Password", { exact: true }).fill(password);
    await dialog.getByLabel("Role", { exact: true }).selectOption("maintainer");
    await dialog.getByLabel("Tenant ids, comma-separated").fill(TENANT);
    // Group names are checked in the dialog, against the same pattern as the API's.
    await dialog.getByLabel(/^Groups/).fill("hr, two words");
    await dialog.getByTestId("user-create-submit").click();
    await expect(dialog.getByText(/“two words” is not a group name/)).toBeVisible();
    await expect(dialog.getByLabel(/^Groups/)).toBeFocused();
    await dialog.getByLabel(/^Groups/).fill("hr, finance");
    await shot("11-add-user-dialog.png");
    await dialog.getByTestId("user-create-submit").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `User ${email} added` })).toBeVisible();
    const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`);
    await expect(row).toHaveAttribute("data-role", "maintainer");
    await expect(row).toHaveAttribute("data-status", "active");
    await expect(row.locator(".tenant-chip")).toHaveText([TENANT]);
    await expect(row.getByTestId("group-chip")).toHaveText(["finance", "hr"]);
    await shot("12-user-row.png");
  });

  await test.step("adding the same email again is refused inside the dialog", async () => {
    await page.getByTestId("user-create-open").click();
    const dialog = page.getByRole("dialog", { name: "Add user" });
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Password", { exact: true }).fill("another-long-password");
    await dialog.getByLabel("All tenants").check();
    await dialog.getByTestId("user-create-submit").click();
    await expect(dialog.getByTestId("action-error")).toContainText("EMAIL_TAKEN");
    await expect(dialog.getByText("A user with this email already exists.")).toBeVisible();
    await expect(dialog).toBeVisible();
    await shot("13-email-taken.png");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
  });

  await test.step("sign out and sign in with email and password", async () => {
    await signOut(page);
    await shot("14-signin-email-mode.png");
    await signInWithPassword(page, email, password);
    await expect(page).toHaveURL(/\/overview$/);
    await expect(page.getByTestId("whoami")).toContainText(`user:${email}`);
    await expect(page.getByTestId("whoami")).toContainText("maintainer");
    await expect(page.getByTestId("whoami-tenants")).toContainText(`tenant ${TENANT}`);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
    await shot("15-user-overview.png");
  });

  await test.step("the admin changes the user's role, tenants and groups, and resets the password", async () => {
    await signOut(page);
    await signIn(page);
    await openAdmin(page);
    const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`);

    await row.getByTestId("user-access").click();
    const accessDialog = page.getByRole("dialog", { name: `Access of ${email}` });
    await expect(accessDialog.getByTestId("user-access-confirm")).toBeDisabled();
    await expect(accessDialog.getByLabel("Tenant ids, comma-separated")).toHaveValue(TENANT);
    await expect(accessDialog.getByLabel(/^Groups/)).toHaveValue("finance, hr");
    await accessDialog.getByTestId("user-access-role").selectOption("operator");
    await accessDialog.getByLabel("All tenants").check();
    await accessDialog.getByLabel(/^Groups/).fill("hr");
    await shot("16a-access-dialog.png");
    await accessDialog.getByTestId("user-access-confirm").click();
    await expect(accessDialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `${email} is now operator` })).toBeVisible();
    await expect(row).toHaveAttribute("data-role", "operator");
    await expect(row.getByTestId("tenants-all")).toBeVisible();
    await expect(row.getByTestId("group-chip")).toHaveText(["hr"]);

    await row.getByTestId("user-reset-password").click();
    const pwDialog = page.getByRole("dialog", { name: `Reset password of ${email}` });
    await pwDialog.getByLabel("New password", { exact: true }).fill(newPassword);
    await shot("16-reset-password-dialog.png");
    await pwDialog.getByTestId("user-password-confirm").click();
    await expect(pwDialog).toBeHidden();
    await expect(page.getByTestId("toast").filter({ hasText: `Password of ${email} changed` })).toBeVisible();
  });

  await test.step("the user signs in with the new password and has the new role and tenants", async () => {
    await signOut(page);
    await signInWithPassword(page, email, newPassword);
    await expect(page.getByTestId("whoami")).toContainText("operator");
    await expect(page.getByTestId("whoami-tenants")).toContainText("all tenants");
  });

  await test.step("a disabled user can no longer sign in", async () => {
    await signOut(page);
    await signIn(page);
    await openAdmin(page);
    const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`);
    await row.getByTestId("user-disable").click();
    const dialog = page.getByRole("dialog", { name: `Disable ${email}` });
    await expect(dialog.getByTestId("action-effect")).toContainText("can no longer sign in");
    await dialog.getByTestId("user-disable-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(row).toHaveAttribute("data-status", "disabled");
    await expect(row.getByTestId("user-enable")).toBeVisible();
    await shot("17-user-disabled.png");

    await signOut(page);
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(newPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    const error = page.getByTestId("signin-error");
    await expect(error).toHaveAttribute("data-code", "UNAUTHORIZED");
    await expect(error).toContainText("Wrong email or password");
    await expect(page.getByLabel("Password", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await shot("18-signin-refused.png");
  });
});

test("sign-in tabs work from the keyboard, and 401 / 429 answers are explained", async ({ page }) => {
  const shot = shooter(page);
  await page.goto("/signin");
  const passwordTab = page.getByRole("tab", { name: "Email and password" });
  const tokenTab = page.getByRole("tab", { name: "Access token" });
  await expect(passwordTab).toHaveAttribute("aria-selected", "true");
  await expect(page.getByLabel("Email", { exact: true })).toBeFocused();

  // Submitting empty explains what is missing, without a request.
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signin-error")).toContainText("Enter your email");
  await expect(page.getByLabel("Email", { exact: true })).toHaveAttribute("aria-invalid", "true");

  // Arrow keys move between the two methods (roving tab stop).
  await passwordTab.focus();
  await page.keyboard.press("ArrowRight");
  await expect(tokenTab).toBeFocused();
  await expect(tokenTab).toHaveAttribute("aria-selected", "true");
  await expect(passwordTab).toHaveAttribute("tabindex", "-1");
  await expect(page.getByTestId("signin-error")).toHaveCount(0);
  const panel = page.getByRole("tabpanel", { name: "Access token" });
  await expect(panel.getByLabel("Access token")).toBeVisible();
  await page.keyboard.press("Home");
  await expect(passwordTab).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("End");
  await expect(tokenTab).toHaveAttribute("aria-selected", "true");

  // The server's answers are stubbed here, so that no real failures count towards the rate limit.
  let answer: { status: number; code: string; message: string } = {
    status: 401,
    code: "UNAUTHORIZED",
    message: "that token is not valid",
  };
  await page.route("**/api/auth/signin", (route) =>
    route.fulfill({
      status: answer.status,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: answer.code, message: answer.message } }),
    }),
  );

  await panel.getByLabel("Access token").fill("iw_not-a-real-token");
  await page.keyboard.press("Enter");
  const error = page.getByTestId("signin-error");
  await expect(error).toHaveAttribute("data-code", "UNAUTHORIZED");
  await expect(error).toContainText("Token not accepted");
  await expect(panel.getByLabel("Access token")).toHaveAttribute("aria-invalid", "true");
  await shot("21-signin-token-401.png");

  answer = { status: 429, code: "TOO_MANY_ATTEMPTS", message: "too many failed sign-ins; try again in 2 minutes" };
  await passwordTab.click();
  await page.getByLabel("Email", { exact: true }).fill("someone@example.com");
  await page.getByLabel("Password", { exact: true }).fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(error).toHaveAttribute("data-code", "TOO_MANY_ATTEMPTS");
  await expect(error).toContainText("Too many failed attempts");
  // The wait the server names is passed on.
  await expect(error).toContainText("try again in 2 minutes");
  await shot("22-signin-429.png");
});

test("person's tokens act as a chosen user; application tokens carry capabilities; a tenant-limited admin grants only its tenants", async ({
  signedIn: page,
}) => {
  const shot = shooter(page);
  const password = "copper-lantern-harbour-58";
  const person = `${uniqueKey("e2e-person")}@example.com`;
  const limitedAdmin = `${uniqueKey("e2e-limited-admin")}@example.com`;
  const personToken = uniqueKey("ada-laptop");
  const appToken = uniqueKey("search-backend");

  await test.step("seed: a viewer in tenant e2e with group hr, and an admin limited to tenant e2e", async () => {
    const users: CreateUserBody[] = [
      { email: person, password, role: "viewer", tenants: [TENANT], groups: ["hr"] },
      { email: limitedAdmin, password, role: "admin", tenants: [TENANT] },
    ];
    for (const body of users) await createUser(body);
  });

  await test.step("a person's token: the user is chosen, role and tenants never exceed theirs, no capabilities", async () => {
    await openAdmin(page);
    await page.getByTestId("token-create-open").click();
    const dialog = page.getByRole("dialog", { name: "Create API token" });
    await dialog.getByLabel("Name", { exact: true }).fill(personToken);
    await dialog.getByTestId("token-kind-person").check();
    await expect(dialog.getByTestId("token-capabilities")).toHaveCount(0);
    // Without a user there is nothing to grant yet.
    await dialog.getByTestId("token-create-submit").click();
    await expect(dialog.getByText("Choose the user this token acts as.")).toBeVisible();
    await expect(dialog.getByLabel("User", { exact: true })).toBeFocused();
    await dialog.getByLabel("User", { exact: true }).selectOption({ label: `${person} — viewer, tenant ${TENANT}` });
    // Viewer is the only role offered; the tenant starts ticked, as the user holds it.
    await expect(dialog.getByLabel("Role", { exact: true }).locator("option")).toHaveText(["Viewer"]);
    await expect(dialog.getByText(`At most viewer, the role of ${person}.`)).toBeVisible();
    await expect(dialog.getByLabel(TENANT, { exact: true })).toBeChecked();
    await expect(dialog.getByLabel("All tenants")).toHaveCount(0);
    await shot("31-person-token-dialog.png");
    await dialog.getByTestId("token-create-submit").click();

    const secretDialog = page.getByRole("dialog", { name: "Copy your new token" });
    await expect(secretDialog.getByTestId("token-secret-view")).toContainText("Acts as its user");
    await secretDialog.getByTestId("token-secret-done").click();
    const row = page.locator(`[data-testid="token-row"][data-name="${personToken}"]`);
    await expect(row).toHaveAttribute("data-kind", "person");
    await expect(row.getByTestId("token-user")).toHaveText(person);
    await expect(row.locator(".tenant-chip")).toHaveText([TENANT]);
  });

  await test.step("an application token with both capabilities; metrics only once it has all tenants", async () => {
    await page.getByTestId("token-create-open").click();
    const dialog = page.getByRole("dialog", { name: "Create API token" });
    await dialog.getByLabel("Name", { exact: true }).fill(appToken);
    await dialog.getByLabel("Tenant ids, comma-separated").fill(TENANT);
    const metrics = dialog.getByLabel("May read /api/metrics");
    await expect(metrics).toBeDisabled();
    await expect(dialog.getByText("Tick “All tenants” first: metrics cover every tenant.")).toBeVisible();
    await dialog.getByLabel("May search on behalf of end users (name principals)").check();
    await dialog.getByLabel("All tenants").check();
    await expect(metrics).toBeEnabled();
    await metrics.check();
    await shot("32-application-token-capabilities.png");
    await dialog.getByTestId("token-create-submit").click();
    const secretDialog = page.getByRole("dialog", { name: "Copy your new token" });
    await expect(secretDialog.getByTestId("token-secret-view")).toContainText(
      "may search on behalf of end users, may read /api/metrics",
    );
    await secretDialog.getByTestId("token-secret-done").click();
    const row = page.locator(`[data-testid="token-row"][data-name="${appToken}"]`);
    await expect(row).toHaveAttribute("data-kind", "application");
    await expect(row.getByTestId("token-capabilities-cell").locator(".chip")).toHaveText([
      "End-user search",
      "Metrics",
    ]);
    await shot("33-tokens-table.png");
  });

  await test.step("a refused grant is shown on the field to fix", async () => {
    // The dialog only offers grants the admin holds, so the refusal is answered here by a stub.
    await page.route("**/api/v1/admin/tokens", (route) =>
      route.request().method() === "POST"
        ? route.fulfill({
            status: 403,
            contentType: "application/json",
            body: JSON.stringify({
              error: { code: "GRANT_EXCEEDS_OWN", message: "you cannot grant globex: you do not hold it" },
            }),
          })
        : route.fallback(),
    );
    await page.getByTestId("token-create-open").click();
    const dialog = page.getByRole("dialog", { name: "Create API token" });
    await dialog.getByLabel("Name", { exact: true }).fill(uniqueKey("refused"));
    await dialog.getByLabel("Tenant ids, comma-separated").fill("globex");
    await dialog.getByTestId("token-create-submit").click();
    await expect(dialog.getByTestId("action-error")).toContainText("GRANT_EXCEEDS_OWN");
    await expect(dialog.getByText("Includes tenants you do not hold.")).toBeVisible();
    await expect(dialog.getByLabel("Tenant ids, comma-separated")).toHaveAttribute("aria-invalid", "true");
    await expect(dialog.getByLabel("Tenant ids, comma-separated")).toBeFocused();
    await shot("34-grant-refused.png");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await page.unroute("**/api/v1/admin/tokens");
  });

  await test.step("a tenant-limited admin is offered only its own tenant, no All tenants and no metrics", async () => {
    await signOut(page);
    await signInWithPassword(page, limitedAdmin, password);
    await expect(page.getByTestId("whoami-tenants")).toContainText(`tenant ${TENANT}`);
    await openAdmin(page);
    // Accounts with all tenants are outside this admin's reach and not listed.
    await expect(page.locator('[data-testid="user-row"][data-email="admin@localhost"]')).toHaveCount(0);
    await expect(page.locator(`[data-testid="user-row"][data-email="${person}"]`)).toBeVisible();
    await page.getByTestId("token-create-open").click();
    const dialog = page.getByRole("dialog", { name: "Create API token" });
    await expect(dialog.getByLabel("All tenants")).toHaveCount(0);
    await expect(dialog.getByTestId("token-tenants-option")).toHaveCount(1);
    await expect(dialog.getByLabel(TENANT, { exact: true })).not.toBeChecked();
    await expect(dialog.getByLabel("May read /api/metrics")).toHaveCount(0);
    await expect(dialog.getByLabel("May search on behalf of end users (name principals)")).toBeVisible();
    await shot("35-limited-admin-token-dialog.png");
    await page.keyboard.press("Escape");
  });
});
