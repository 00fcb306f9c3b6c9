# Sourced by .ci/test: a throwaway PostgreSQL cluster for the PostgreSQL
# run of the store and handler tests (docs/design.md, "Engines"). Installs
# Debian's postgresql when it is missing (when apt-get can), runs initdb in
# a temporary directory as an unprivileged user (postgres when run as root),
# listens only on a Unix socket in that directory (no port to clash), and
# stops and removes the cluster when the shell exits.
#
# After start_postgres, PG_URL holds the cluster's URL (for
# TRUSTFRAME_TEST_POSTGRES), or is empty when PostgreSQL cannot be had here
# (then the caller skips the run).

pg_bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ]; then echo "$d"; fi
  done | sort -V | tail -n 1
}

start_postgres() {
  PG_URL=""
  local bin
  bin=$(pg_bindir)
  if [ -z "$bin" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's postgresql for the PostgreSQL run of the tests"
    local sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    bin=$(pg_bindir)
  fi
  if [ -z "$bin" ]; then
    if [ "${CI:-}" = "true" ]; then
      echo "PostgreSQL (initdb) is missing and could not be installed" >&2
      return 1
    fi
    echo "==> PostgreSQL is not installed here: skipping the PostgreSQL run (CI=true requires it)"
    return 0
  fi
  PG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/trustframe-pg.XXXXXX")
  local as=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$PG_TMP"
    as=(runuser -u postgres --)
  fi
  PG_AS=("${as[@]}")
  PG_BIN=$bin
  trap stop_postgres EXIT
  "${as[@]}" "$bin/initdb" -D "$PG_TMP/data" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$PG_TMP/initdb.log" 2>&1 ||
    { cat "$PG_TMP/initdb.log" >&2; return 1; }
  # A test cluster: no TCP, no fsync (nothing here outlives the run), room
  # for the tests' databases open at once.
  "${as[@]}" "$bin/pg_ctl" -D "$PG_TMP/data" -l "$PG_TMP/server.log" -w \
    -o "-c listen_addresses='' -k $PG_TMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null ||
    { cat "$PG_TMP/server.log" >&2; return 1; }
  PG_URL="postgres://postgres@/postgres?host=$PG_TMP&sslmode=disable"
  echo "==> throwaway PostgreSQL ($("$bin/postgres" --version)) in $PG_TMP"
}

stop_postgres() {
  if [ -n "${PG_TMP:-}" ] && [ -d "$PG_TMP/data" ]; then
    "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_TMP/data" -m immediate stop >/dev/null 2>&1 || true
  fi
  if [ -n "${PG_TMP:-}" ]; then rm -rf "$PG_TMP"; fi
}
