#!/usr/bin/env bash
# Debian packages the browser tests need: Chromium and a font to render pages with. PostgreSQL and
# pgvector are .ci/postgres.sh's. Idempotent: skipped when a Chromium is already there.
# (Without this, `npm run test:e2e` fetches Playwright's own Chromium; see e2e/support/chromium.ts.)
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  echo "[system-deps] installing chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi
echo "[system-deps] chromium: $(/usr/bin/chromium --version 2>/dev/null || echo missing)"
