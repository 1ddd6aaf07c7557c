#!/usr/bin/env bash
# PostgreSQL for the tests: a server answering on 127.0.0.1:5432 that trusts the postgres user on
# the loopback interface, with pgvector ≥ 0.8 built for that server's major version.
#
#   1. A server already answering there is used as it is (never stopped, reconfigured or upgraded).
#   2. Otherwise a stopped cluster configured for port 5432 is started.
#   3. Otherwise PostgreSQL is installed from Debian's packages when missing (PG_MAJOR picks
#      postgresql-N; unset, the distribution's default), a cluster is created on port 5432 with
#      trust authentication, and started.
#   4. pgvector is built from Debian's source package (0.8 or later, for hnsw.iterative_scan) for
#      the major version of the server that answers, unless that server already offers it.
#
# Idempotent: each step is skipped when its result is there. DRY_RUN=1 prints each command that
# would change the machine instead of running it (what it reads, it still reads).
set -euo pipefail

HOST=127.0.0.1
PORT=5432
PGVECTOR_MIN=0.8.0
DRY_RUN="${DRY_RUN:-0}"
PG_ETC=/etc/postgresql

say() { echo "[postgres] $*"; }
die() { echo "[postgres] error: $*" >&2; exit 1; }
# Runs a command that changes the machine, or prints it under DRY_RUN=1.
change() {
  if [ "$DRY_RUN" = 1 ]; then
    echo "[postgres] would run: $*"
  else
    "$@"
  fi
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    change apt-get update -qq
    apt_updated=1
  fi
  change env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# Something accepts TCP connections on the port (no client tools needed to ask).
port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

psql_q() { psql -X -v ON_ERROR_STOP=1 -Atq -h "$HOST" -p "$PORT" -U postgres -d postgres -c "$1"; }

# "15", "16", …: the newest PostgreSQL server installed from Debian's packages, or nothing.
newest_installed_major() {
  local d best=""
  for d in /usr/lib/postgresql/*/bin/postgres; do
    [ -x "$d" ] || continue
    d=${d#/usr/lib/postgresql/}
    d=${d%%/*}
    if [ -z "$best" ] || [ "$d" -gt "$best" ]; then best=$d; fi
  done
  echo "$best"
}

# "VERSION CLUSTER" of an installed cluster configured for our port, or nothing.
cluster_on_port() {
  local conf v c p
  for conf in "$PG_ETC"/*/*/postgresql.conf; do
    [ -f "$conf" ] || continue
    c=$(basename "$(dirname "$conf")")
    v=$(basename "$(dirname "$(dirname "$conf")")")
    # Configuration left behind by a server version since removed cannot be started.
    [ -x "/usr/lib/postgresql/$v/bin/postgres" ] || continue
    p=$(sed -n -E "s/^[[:space:]]*port[[:space:]]*=[[:space:]]*([0-9]+).*/\1/p" "$conf" | tail -1)
    if [ "${p:-5432}" = "$PORT" ]; then
      echo "$v $c"
      return
    fi
  done
}

# A cluster this script made: trust on the loopback interface and the local socket, nothing else.
write_trust_hba() {
  local v=$1 c=$2 hba="$PG_ETC/$1/$2/pg_hba.conf"
  say "trust authentication on loopback for cluster $v/$c ($hba)"
  if [ "$DRY_RUN" = 1 ]; then
    echo "[postgres] would write $hba"
    return
  fi
  cat >"$hba" <<'EOF'
# Written by .ci/postgres.sh for a test cluster: trusted on the loopback interface only.
local   all   all                  trust
host    all   all   127.0.0.1/32   trust
host    all   all   ::1/128        trust
EOF
}

start_cluster() {
  local v=$1 c=$2
  if pg_ctlcluster "$v" "$c" status >/dev/null 2>&1; then
    say "cluster $v/$c is running"
    return
  fi
  say "starting cluster $v/$c"
  change pg_ctlcluster --skip-systemctl-redirect "$v" "$c" start
}

# --- 1–3: a server on 127.0.0.1:5432 -------------------------------------------------------------
created=0
if port_open; then
  say "a server answers on $HOST:$PORT; using it"
else
  major=$(newest_installed_major)
  if [ -z "$major" ]; then
    pkg="postgresql${PG_MAJOR:+-$PG_MAJOR}"
    say "PostgreSQL is not installed; installing $pkg from Debian's packages"
    had_clusters=$(find "$PG_ETC" -mindepth 2 -maxdepth 2 -type d 2>/dev/null | wc -l)
    apt_install "$pkg" postgresql-client
    major=$(newest_installed_major)
    if [ -z "$major" ]; then
      # Only a dry run gets here: name the version the package would bring.
      major=${PG_MAJOR:-$(apt-cache policy postgresql | sed -n -E 's/^[[:space:]]*Candidate:[[:space:]]*([0-9]+).*/\1/p')}
    fi
    # Debian's package creates a "main" cluster itself when none existed; that one is ours too.
    if [ "$had_clusters" = 0 ]; then created=1; fi
  elif [ -n "${PG_MAJOR:-}" ] && [ "$PG_MAJOR" != "$major" ]; then
    say "note: PG_MAJOR=$PG_MAJOR, but PostgreSQL $major is what is installed; using $major"
  fi
  # Debian's package creates and configures a "main" cluster on the first free port from 5432 when
  # it installs the first server, so after an install this usually finds that one.
  found=$(cluster_on_port)
  if [ -z "$found" ]; then
    name=main
    if [ -d "$PG_ETC/$major/main" ]; then name=indexwright; fi
    say "no cluster on port $PORT; creating $major/$name with trust authentication"
    # --auth makes pg_createcluster keep initdb's pg_hba.conf, which then trusts every local connection.
    change pg_createcluster --port "$PORT" --start-conf=manual "$major" "$name" -- --auth=trust
    found="$major $name"
    created=1
  fi
  read -r v c <<<"$found"
  if [ "$created" = 1 ]; then write_trust_hba "$v" "$c"; fi
  start_cluster "$v" "$c"
fi

if [ "$DRY_RUN" = 1 ] && ! port_open; then
  say "dry run: stopping here (no server to ask for its version)"
  exit 0
fi

if ! command -v psql >/dev/null || ! command -v pg_isready >/dev/null; then
  say "installing the PostgreSQL client tools"
  apt_install postgresql-client
fi
for _ in $(seq 1 60); do pg_isready -q -h "$HOST" -p "$PORT" && break; sleep 1; done
pg_isready -q -h "$HOST" -p "$PORT" || die "nothing ready on $HOST:$PORT after 60 s"
if ! psql_q "SELECT 1" >/dev/null 2>&1; then
  die "the server on $HOST:$PORT refuses user postgres without a password; the tests need a trust line in its pg_hba.conf:
  host  all  all  127.0.0.1/32  trust
then reload it (pg_ctlcluster <version> <cluster> reload)"
fi

# --- 4: pgvector for the server that answers ------------------------------------------------------
server_major=$(( $(psql_q "SHOW server_version_num") / 10000 ))
say "server: $(psql_q "SHOW server_version") (major $server_major)"
if [ -n "${PG_MAJOR:-}" ] && [ "$PG_MAJOR" != "$server_major" ]; then
  say "note: PG_MAJOR=$PG_MAJOR, but the server on $HOST:$PORT is $server_major; pgvector is built for $server_major"
fi

available=$(psql_q "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
if [ -n "$available" ] && [ "$(printf '%s\n%s\n' "$PGVECTOR_MIN" "$available" | sort -V | head -1)" = "$PGVECTOR_MIN" ]; then
  say "pgvector $available is available"
  exit 0
fi
say "building pgvector for PostgreSQL $server_major (available now: ${available:-none}; ${PGVECTOR_MIN} or later is needed)"
# Debian 12 packages pgvector 0.4; the source of Debian 13's 0.8 builds against any supported server.
src_list=/etc/apt/sources.list.d/indexwright-trixie-src.list
if [ ! -f "$src_list" ]; then
  if [ "$DRY_RUN" = 1 ]; then
    echo "[postgres] would write $src_list"
  else
    echo "deb-src http://deb.debian.org/debian trixie main" >"$src_list"
  fi
  apt_updated=0
fi
apt_install "postgresql-server-dev-$server_major" build-essential
pg_config="/usr/lib/postgresql/$server_major/bin/pg_config"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(
  cd "$work"
  change apt-get source --download-only pgvector >/dev/null
  if [ "$DRY_RUN" = 1 ]; then exit 0; fi
  tar xf pgvector_*.orig.tar.*
  cd pgvector-*/
  # OPTFLAGS="": no -march=native, so the library runs on any machine that mounts this one's files.
  make PG_CONFIG="$pg_config" OPTFLAGS="" >/dev/null
  make PG_CONFIG="$pg_config" install >/dev/null
)
if [ "$DRY_RUN" = 1 ]; then exit 0; fi
available=$(psql_q "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
say "pgvector ${available:-missing} for PostgreSQL $server_major"
[ -n "$available" ] || die "pgvector was built but the server does not offer it"
