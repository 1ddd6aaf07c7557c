import { defineConfig } from "@playwright/test";

// One fresh data directory per run. The config is evaluated again in each worker process; the
// environment variable carries the runner's value to them so every process agrees on it.
const RUN_STAMP = (process.env.INDEXWRIGHT_E2E_RUN_STAMP ??= new Date().toISOString().replace(/[-:.TZ]/g, ""));

/** Must equal E2E_TOKEN in e2e/fixtures.ts. */
const BOOTSTRAP_TOKEN = "e2e-bootstrap-token-0123456789abcdef";

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.e2e.ts",
  outputDir: "test-results",
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // A publish → SEARCHABLE round trip alone may take up to a minute.
  timeout: 180_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "reports/playwright.json" }], ["html", { open: "never", outputFolder: "reports/playwright-html" }]],
  use: {
    baseURL: "http://127.0.0.1:3100",
    browserName: "chromium",
    viewport: { width: 1360, height: 900 },
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    screenshot: "on",
    trace: "retain-on-failure",
  },
  webServer: {
    command: "node bin/indexwright.mjs start",
    url: "http://127.0.0.1:3100/api/health",
    timeout: 300_000,
    reuseExistingServer: false,
    env: {
      PORT: "3100",
      INDEXWRIGHT_DATA_DIR: `.indexwright/e2e-${RUN_STAMP}`,
      INDEXWRIGHT_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
      POLL_INTERVAL_MS: "200",
      EMBEDDED_DB_PORT: "54433",
    },
    stdout: "pipe",
  },
});
