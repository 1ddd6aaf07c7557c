import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { expect, test as base, type APIRequestContext, type Page } from "@playwright/test";
import { SERVICES_URL } from "./services/settings";
import { checkedSoFar, recordBrowserAnswer, takeProblems, watchRequests } from "./support/contract";

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
  const safe =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^[^a-z0-9]+/, "") || "e2e";
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

/**
 * A full-page screenshot, or the viewport if that does not finish in time: headless Chromium was
 * seen (once, in CI) to hang forever in a full-page capture of the live-updating overview, and a
 * screenshot is evidence, not the thing under test.
 */
export async function saveScreenshot(page: Page, path: string): Promise<void> {
  try {
    await page.screenshot({ path, fullPage: true, timeout: 15_000 });
  } catch (err) {
    if (!(err instanceof Error && err.name === "TimeoutError")) throw err;
    await page.screenshot({ path, timeout: 15_000 });
  }
}

/**
 * Switches the emulated colour scheme and waits until every transition the switch started has
 * finished. Buttons and the file drop fade their colours (0.12 s): axe or a screenshot taken mid-fade
 * sees colours between the two themes. A fixed 300 ms wait was not enough on a loaded CI machine
 * (color-contrast failed in the dark publish dialog); reading the document's animations is.
 * Animations that never end (spinners, the live dot) are not waited for.
 */
export async function switchTheme(page: Page, scheme: "light" | "dark"): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((a) => a.playState !== "running" || a.effect?.getComputedTiming().endTime === Infinity),
  );
}

export async function attachShot(page: Page, name: string): Promise<void> {
  const info = base.info();
  const path = info.outputPath(name);
  await saveScreenshot(page, path);
  await info.attach(name, { path, contentType: "image/png" });
}

/** `const shot = shooter(page); await shot("01-step.png")`: a screenshot artifact per journey step. */
export const shooter = (page: Page) => (name: string) => attachShot(page, name);

/**
 * A fault of the fake embeddings provider (e2e/services/embeddings.ts) for requests whose texts
 * contain `match`: answer with HTTP `status`, and/or wait `delayMs` first. Scope it with a marker
 * only your own document contains, so other tests are not affected.
 */
export type ProviderRule = { match: string; status?: number; delayMs?: number };

/** Installs (or replaces) a provider rule. */
export async function setProviderRule(request: APIRequestContext, rule: ProviderRule): Promise<void> {
  const res = await request.post(`${SERVICES_URL}/control/rules`, { data: rule });
  expect(res.status(), await res.text()).toBe(200);
}

/** How many embeddings requests a rule has applied to so far (0 when there is no such rule). */
export async function providerRuleHits(request: APIRequestContext, match: string): Promise<number> {
  const res = await request.get(`${SERVICES_URL}/control/rules`);
  expect(res.status(), await res.text()).toBe(200);
  const rules = (await res.json()).rules as { match: string; hits: number }[];
  return rules.find((r) => r.match === match)?.hits ?? 0;
}

/** Removes a provider rule (the provider "recovers" for that marker); returns how often it applied. */
export async function clearProviderRule(request: APIRequestContext, match: string): Promise<number> {
  const res = await request.delete(`${SERVICES_URL}/control/rules/${encodeURIComponent(match)}`);
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()).removed?.hits as number | undefined) ?? 0;
}

type Fixtures = {
  /** A page already signed in with the bootstrap token, sitting on /documents. */
  signedIn: Page;
  /** Every API answer of the test checked against the served OpenAPI document (support/contract.ts). */
  contract: void;
};

type WorkerFixtures = {
  /** At the end of the run: how many answers of each operation were checked, in reports/. */
  contractSummary: void;
};

export const test = base.extend<Fixtures, WorkerFixtures>({
  // (The second parameter is Playwright's `use`, renamed so React lint rules do not mistake it for React's.)
  signedIn: async ({ page }, provide) => {
    await signIn(page);
    await page.getByRole("link", { name: "Documents", exact: true }).click();
    await page.waitForURL(/\/documents(\?|$)/);
    await expect(page.getByRole("heading", { level: 1, name: "Documents" })).toBeVisible();
    await provide(page);
  },
  request: async ({ request }, provide) => {
    await provide(watchRequests(request));
  },
  contract: [
    async ({ context }, provide, info) => {
      context.on("response", recordBrowserAnswer);
      await provide();
      const { answers, problems } = await takeProblems();
      info.annotations.push({ type: "contract", description: `${answers} API answers checked` });
      expect(problems, "API answers the served OpenAPI document does not allow").toEqual([]);
    },
    { auto: true },
  ],
  contractSummary: [
    async ({}, provide, info) => {
      await provide();
      const checked = await checkedSoFar();
      mkdirSync("reports", { recursive: true });
      writeFileSync(
        `reports/e2e-contract-${info.workerIndex}.json`,
        JSON.stringify({ answers: Object.values(checked).reduce((a, b) => a + b, 0), operations: checked }, null, 2),
      );
    },
    { scope: "worker", auto: true },
  ],
});

export { expect };
