#!/usr/bin/env bash
# Run a command against a private, throw-away PostgreSQL cluster (loopback only), then stop it.
#   scripts/with-postgres.sh CMD...   → CMD sees PROOFDECK_TEST_POSTGRES_URL
# The cluster lives in a temp folder and is stopped and deleted on exit, even when CMD fails.
set -euo pipefail

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 2; }

dir=$(mktemp -d /tmp/proofdeck-pg.XXXXXX)
run_as=()
if [ "$(id -u)" = 0 ]; then            # initdb refuses to run as root: use the postgres account
  chown postgres: "$dir"
  run_as=(runuser -u postgres --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

cleanup() {
  "${run_as[@]}" "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

"${run_as[@]}" "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
"${run_as[@]}" "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 start \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=off -c max_connections=200" >/dev/null

export PROOFDECK_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (private, in $dir)"
"$@"
