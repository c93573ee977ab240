#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server of its own, for the PostgreSQL store's tests:
#   scripts/with-postgres.sh swift test --skip-build
# initdb into a temporary folder, pg_ctl start on a Unix socket in that folder only (no TCP port, so nothing
# clashes with another server or another run), QUIRE_TEST_POSTGRES_URL exported to the command, and the server
# stopped and the folder removed afterwards, whether the command passed, failed or was interrupted.
# Without PostgreSQL's server programs the command runs alone and the PostgreSQL tests skip, saying why.
# As root (CI), the server runs as the `postgres` user Debian's package creates (PostgreSQL refuses root).
set -uo pipefail

bin="${QUIRE_PG_BIN:-}"
if [ -z "$bin" ]; then
    bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
fi
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
    echo "with-postgres: no PostgreSQL server programs (initdb, pg_ctl) found; the PostgreSQL tests will skip." >&2
    exec "$@"
fi

as_server() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u "${QUIRE_PG_OS_USER:-postgres}" -- "$@"; else "$@"; fi
}

dir="$(mktemp -d "${TMPDIR:-/tmp}/quire-pg.XXXXXX")"
chmod 755 "$dir"
if [ "$(id -u)" -eq 0 ]; then chown "${QUIRE_PG_OS_USER:-postgres}" "$dir"; fi
port=55432
started=0

cleanup() {
    if [ "$started" -eq 1 ]; then
        as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! as_server "$bin/initdb" -D "$dir/data" -U quire -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
    echo "with-postgres: initdb failed; the PostgreSQL tests will skip:" >&2
    tail -n 5 "$dir/initdb.log" >&2
    "$@"
    exit $?
fi
# The trusted superuser `quire` for the tests; every other role must give its password (the tests check
# that a wrong one is refused).
cat >"$dir/data/pg_hba.conf" <<HBA
local all quire trust
local all all scram-sha-256
HBA
if ! as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -p $port -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null; then
    echo "with-postgres: the server did not start; the PostgreSQL tests will skip:" >&2
    tail -n 10 "$dir/server.log" >&2
    "$@"
    exit $?
fi
started=1
export QUIRE_TEST_POSTGRES_URL="postgresql://quire@/postgres?host=$dir&port=$port"
export QUIRE_TEST_POSTGRES_SOCKET_DIR="$dir"
echo "with-postgres: $("$bin/pg_ctl" --version) on $dir (port $port) for this run."
"$@"
exit $?
