import { randomBytes } from "node:crypto";
import { expect, test as base, type Page } from "@playwright/test";

/** The bootstrap token the web server is started with (playwright.config.ts sets the same value). */
export const E2E_TOKEN = process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN ?? "e2e-bootstrap-token-0123456789abcdef";

/**
 * A key/tenant-safe unique name (matches ^[a-z0-9][a-z0-9._-]{0,127}$), e.g. "e2e-doc-lq3k9x-4f1a2b".
 *
 * No cleanup is needed after tests: every run starts the server on a fresh data directory
 * (.indexwright/e2e-<timestamp>, see playwright.config.ts), so documents never leak between runs.
 * Unique keys still keep tests independent of each other within one run.
 */
export function uniqueKey(prefix = "e2e-doc"): string {
  const safe = prefix.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[^a-z0-9]+/, "") || "e2e";
  return `${safe}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`.slice(0, 128);
}

/** Signs in through the real form with an access token ("Access token" tab) and waits for the overview. */
export async function signIn(page: Page, token: string = E2E_TOKEN): Promise<void> {
  await page.goto("/signin");
  await page.getByRole("tab", { name: "Access token" }).click();
  const panel = page.getByRole("tabpanel", { name: "Access token" });
  await panel.getByLabel("Access token").fill(token);
  await panel.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/overview(\?|$)/);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
}

/** Signs in with email and password (the default "Email and password" tab) and waits for the overview. */
export async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/signin");
  await expect(page.getByRole("tab", { name: "Email and password" })).toHaveAttribute("aria-selected", "true");
  const panel = page.getByRole("tabpanel", { name: "Email and password" });
  await panel.getByLabel("Email").fill(email);
  await panel.getByLabel("Password").fill(password);
  await panel.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/overview(\?|$)/);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
}

/** Clicks "Sign out" in the top bar and waits for the sign-in page. */
export async function signOut(page: Page): Promise<void> {
  await page.getByTestId("sign-out").click();
  await page.waitForURL(/\/signin(\?|$)/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
}

type Fixtures = {
  /** A page already signed in with the bootstrap token, sitting on /documents. */
  signedIn: Page;
};

export const test = base.extend<Fixtures>({
  // (The second parameter is Playwright's `use`, renamed so React lint rules do not mistake it for React's.)
  signedIn: async ({ page }, provide) => {
    await signIn(page);
    await page.getByRole("link", { name: "Documents", exact: true }).click();
    await page.waitForURL(/\/documents(\?|$)/);
    await expect(page.getByRole("heading", { level: 1, name: "Documents" })).toBeVisible();
    await provide(page);
  },
});

export { expect };
