import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // Route handlers and repositories are marked server-only; tests are a server context.
      "server-only": path.resolve(import.meta.dirname, "test/helpers/server-only.ts"),
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["test/helpers/global-setup.ts"],
    reporters: ["default", "json"],
    outputFile: { json: "reports/vitest.json" },
  },
});
