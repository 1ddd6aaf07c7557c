import { defineConfig } from "@playwright/test";
import { E2E_PORTS, FAKE_OIDC, FAKE_OPENAI, SERVICES_URL } from "./e2e/services/settings";
import { bundledChromiumRevision, resolveChromium } from "./e2e/support/chromium";

// One fresh data directory per run. The config is evaluated again in each worker process; the
// environment variable carries the runner's value to them so every process agrees on it.
const RUN_STAMP = (process.env.INDEXWRIGHT_E2E_RUN_STAMP ??= new Date().toISOString().replace(/[-:.TZ]/g, ""));

/** Must equal E2E_TOKEN in e2e/fixtures.ts. */
const BOOTSTRAP_TOKEN = "e2e-bootstrap-token-0123456789abcdef";

const APP_URL = `http://127.0.0.1:${E2E_PORTS.app}`;

// Found (or fetched) once by the runner; its worker processes inherit the variable and only check it.
const CHROMIUM = resolveChromium({ preferredRevision: bundledChromiumRevision() }).path;
process.env.PLAYWRIGHT_CHROMIUM_PATH = CHROMIUM;

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
  // A hung browser call must fail the run, not stall CI: no run of this suite needs 25 minutes.
  globalTimeout: 25 * 60_000,
  expect: { timeout: 10_000 },
  reporter: [
    ["list"],
    ["json", { outputFile: "reports/playwright.json" }],
    ["html", { open: "never", outputFolder: "reports/playwright-html" }],
  ],
  use: {
    baseURL: APP_URL,
    browserName: "chromium",
    viewport: { width: 1360, height: 900 },
    launchOptions: {
      executablePath: CHROMIUM,
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
    // Journeys attach their own screenshots at each step (with a viewport fallback, see
    // saveScreenshot); the automatic one is kept for failures.
    screenshot: { mode: "only-on-failure", fullPage: false },
    actionTimeout: 30_000,
    trace: "retain-on-failure",
  },
  webServer: [
    {
      // Fake external services: the OpenAI-compatible embeddings provider (with a control API for
      // marker-scoped failures and delays) and an OpenID provider, see e2e/services/.
      command: "node --import tsx e2e/services/server.ts",
      url: `${SERVICES_URL}/health`,
      timeout: 30_000,
      reuseExistingServer: false,
      env: { E2E_SERVICES_PORT: String(E2E_PORTS.services) },
      stdout: "pipe",
    },
    {
      command: "node bin/indexwright.mjs start",
      url: `${APP_URL}/api/health`,
      timeout: 300_000,
      reuseExistingServer: false,
      env: {
        PORT: String(E2E_PORTS.app),
        INDEXWRIGHT_DATA_DIR: `.indexwright/e2e-${RUN_STAMP}`,
        INDEXWRIGHT_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
        POLL_INTERVAL_MS: "200",
        EMBEDDED_DB_PORT: String(E2E_PORTS.db),
        // Embeddings come from the fake provider over real HTTP, as from OpenAI.
        EMBEDDING_PROVIDER: "openai",
        OPENAI_BASE_URL: `${SERVICES_URL}/v1`,
        OPENAI_API_KEY: FAKE_OPENAI.apiKey,
        EMBEDDING_MODEL: FAKE_OPENAI.model,
        EMBEDDING_DIMENSIONS: String(FAKE_OPENAI.dimensions),
        // Small batches, so a document of a few dozen chunks takes many provider calls; progress
        // written twice a second, so the dashboard's progress bar moves between its refreshes.
        EMBED_BATCH_SIZE: "4",
        HEARTBEAT_SECONDS: "0.5",
        // A failing provider makes a task DEAD within a couple of seconds.
        MAX_ATTEMPTS: "3",
        RETRY_BASE_SECONDS: "0.2",
        RETRY_MAX_SECONDS: "1",
        // Single sign-on through the fake OpenID provider; only people an admin added may use it.
        OIDC_ISSUER: FAKE_OIDC.issuer,
        OIDC_CLIENT_ID: FAKE_OIDC.clientId,
        OIDC_CLIENT_SECRET: FAKE_OIDC.clientSecret,
        OIDC_DISPLAY_NAME: FAKE_OIDC.displayName,
        OIDC_ALLOW_HTTP: "1",
        // Webhooks to the receiver a spec runs on this machine (e2e/webhooks.e2e.ts), retried fast.
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        WEBHOOK_POLL_MS: "200",
        WEBHOOK_TIMEOUT_MS: "2000",
        WEBHOOK_MAX_ATTEMPTS: "3",
        WEBHOOK_RETRY_BASE_SECONDS: "0.3",
        WEBHOOK_RETRY_MAX_SECONDS: "1",
      },
      stdout: "pipe",
    },
  ],
});
