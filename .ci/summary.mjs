// Adds up what the test runners reported (their JSON reports) into one closing line.
import { readFileSync, existsSync } from "node:fs";

let passed = 0,
  failed = 0,
  skipped = 0;
if (existsSync("reports/vitest.json")) {
  const v = JSON.parse(readFileSync("reports/vitest.json", "utf8"));
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  skipped += v.numPendingTests + (v.numTodoTests ?? 0);
}
if (existsSync("reports/playwright.json")) {
  const p = JSON.parse(readFileSync("reports/playwright.json", "utf8"));
  passed += p.stats.expected + (p.stats.flaky ?? 0);
  failed += p.stats.unexpected;
  skipped += p.stats.skipped;
}
const smoke = existsSync("reports/smoke.json") ? JSON.parse(readFileSync("reports/smoke.json", "utf8")) : null;
if (smoke) {
  passed += smoke.passed;
  failed += smoke.failed;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) process.exit(1);
