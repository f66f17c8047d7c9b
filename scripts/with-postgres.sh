#!/usr/bin/env bash
# Usage: scripts/with-postgres.sh COMMAND [ARGS...]
#
# Start a throwaway PostgreSQL cluster (a temporary directory, 127.0.0.1, a free high port,
# trust authentication), run COMMAND with TTR_TEST_POSTGRES_URL pointing at it, then stop
# the cluster and delete it, whatever COMMAND did. Exits with COMMAND's status.
# initdb/pg_ctl refuse to run as root, so as root the cluster runs as user "postgres".
set -euo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "error: PostgreSQL server binaries not found (apt-get install -y postgresql)" >&2
    exit 1
fi

as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    as_owner=(runuser -u postgres --)
fi
# Run a PostgreSQL program as the cluster's owner, from a directory that user can enter.
as_pg() { (cd / && "${as_owner[@]}" "$@"); }

workdir=$(mktemp -d /tmp/ttr-pg.XXXXXX)
chmod 755 "$workdir"
[ ${#as_owner[@]} -eq 0 ] || chown postgres: "$workdir"
data="$workdir/data"
log="$workdir/server.log"

cleanup() {
    status=$?
    if [ -f "$data/postmaster.pid" ]; then
        as_pg "$bindir/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$workdir"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
    python3 - <<'PY'
import socket
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
PY
}

as_pg "$bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >"$workdir/initdb.log" 2>&1 \
    || { cat "$workdir/initdb.log" >&2; exit 1; }

started=""
for _ in 1 2 3 4 5; do
    port=$(free_port)
    # Throwaway data: durability off makes the tests fast; the socket lives in the temp dir.
    if as_pg "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 \
        -o "-h 127.0.0.1 -p $port -k $workdir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
        start >/dev/null; then
        started=yes
        break
    fi
done
if [ -z "$started" ]; then
    echo "error: could not start PostgreSQL; its log:" >&2
    cat "$log" >&2 || true
    exit 1
fi

export TTR_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
echo "throwaway PostgreSQL on 127.0.0.1:$port ($TTR_TEST_POSTGRES_URL)"
set +e
"$@"
status=$?
set -e
exit "$status"
