#!/usr/bin/env bash
# Debian packages the tests need: Chromium and a font to render pages with (browser tests), and
# promtool from `prometheus` (test/ops: the rules' unit tests, the metrics lint). PostgreSQL and
# pgvector are .ci/postgres.sh's. Idempotent: each is skipped when already there.
# (Without this, `npm run test:e2e` fetches Playwright's own Chromium; see e2e/support/chromium.ts.)
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  echo "[system-deps] installing chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi
echo "[system-deps] chromium: $(/usr/bin/chromium --version 2>/dev/null || echo missing)"

if ! command -v promtool >/dev/null; then
  echo "[system-deps] installing prometheus (for promtool)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null
fi
echo "[system-deps] promtool: $(promtool --version 2>/dev/null | head -1 || echo missing)"
