#!/usr/bin/env bash
# Installs what the tests need from Debian: Chromium for Playwright, pgvector for PostgreSQL 15.
# Idempotent: each step is skipped when its result is already present.
set -euo pipefail

apt_updated=0
apt_update_once() {
  if [ "$apt_updated" = 0 ]; then
    apt-get update -qq
    apt_updated=1
  fi
}

if [ ! -x /usr/bin/chromium ]; then
  echo "[system-deps] installing chromium"
  apt_update_once
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi

PG_MAJOR="${PG_MAJOR:-15}"
if [ ! -f "/usr/share/postgresql/${PG_MAJOR}/extension/vector.control" ]; then
  echo "[system-deps] building pgvector for PostgreSQL ${PG_MAJOR}"
  if [ ! -f /etc/apt/sources.list.d/indexwright-trixie-src.list ]; then
    echo "deb-src http://deb.debian.org/debian trixie main" > /etc/apt/sources.list.d/indexwright-trixie-src.list
    apt_updated=0
  fi
  apt_update_once
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-${PG_MAJOR}" build-essential >/dev/null
  work=$(mktemp -d)
  (
    cd "$work"
    apt-get source --download-only pgvector >/dev/null
    tar xf pgvector_*.orig.tar.* 
    cd pgvector-*/
    make OPTFLAGS="" >/dev/null
    make install >/dev/null
  )
  rm -rf "$work"
fi
echo "[system-deps] chromium: $(/usr/bin/chromium --version 2>/dev/null || echo missing)"
echo "[system-deps] pgvector: $(ls /usr/share/postgresql/${PG_MAJOR}/extension/vector.control)"
