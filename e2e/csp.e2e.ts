import type { Page } from "@playwright/test";
import { expect, signIn, test, uniqueKey } from "./fixtures";
import { getDocument, publishVersion, waitSearchable } from "./support/api";

// Every page under the Content-Security-Policy of next.config.mjs: no violation (reported by the
// browser's securitypolicyviolation event, or its console), no page error, and the header itself
// forbids framing and keeps default-src to our origin.

const TENANT = "e2e";

type Violation = { page: string; what: string };

function watch(page: Page, where: () => string): Violation[] {
  const seen: Violation[] = [];
  // Injected by Playwright outside the page's CSP, before any page script runs.
  void page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(
        `[csp-violation] ${e.violatedDirective} blocked ${e.blockedURI || "(inline)"} at ${e.sourceFile}:${e.lineNumber}`,
      );
    });
  });
  page.on("console", (m) => {
    const text = m.text();
    if (text.startsWith("[csp-violation]") || /Content Security Policy/i.test(text))
      seen.push({ page: where(), what: text });
  });
  page.on("pageerror", (err) => seen.push({ page: where(), what: `page error: ${err.message}` }));
  return seen;
}

test("every page loads under the Content-Security-Policy with no violation; the policy forbids framing", async ({
  page,
}) => {
  test.setTimeout(300_000);
  let current = "(none)";
  const violations = watch(page, () => current);

  const key = uniqueKey("e2e-csp");
  await publishVersion(TENANT, key, {
    title: "CSP notes",
    content: "# CSP notes\n\nHerons audit the policy at dawn.\n",
  });
  await waitSearchable(TENANT, key);
  const taskId = String((await getDocument(TENANT, key)).tasks[0]?.taskId ?? "");
  expect(taskId).not.toBe("");

  current = "/signin";
  const signin = await page.goto("/signin");
  const csp = signin!.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toMatch(/(^|; )default-src 'self'(;|$)/);
  expect(csp).toContain("object-src 'none'");
  await signIn(page);

  const pages = [
    "/overview",
    "/documents",
    `/documents/${TENANT}/${key}`,
    "/tasks",
    `/tasks/${taskId}`,
    "/workers",
    "/tenants",
    `/tenants/${TENANT}/migrations`,
    "/spaces",
    `/search?tenant=${TENANT}&q=${encodeURIComponent("herons audit the policy")}`,
    "/audit",
    "/webhooks",
    "/admin",
    "/api-docs",
    "/no-such-page",
  ];
  for (const path of pages) {
    current = path;
    const res = await page.goto(path);
    expect(res!.headers()["content-security-policy"], path).toBe(csp);
    await page.waitForLoadState("networkidle");
    await expect(page.locator("h1").first(), path).toBeVisible();
  }
  expect(violations).toEqual([]);
});
