#!/usr/bin/env bash
# Install the system packages the tests need (Chromium for the browser tests, PostgreSQL
# for the storage tests, Caddy for the hosting recipe's test, a C compiler for the RL
# observations' C encoder), only when missing,
# so a second run costs nothing.
# Runs as root without standard input (CI); as another user it uses sudo if it can.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)  # HTTPS in front of the server (tests/server/test_accounts_https.py)
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    missing+=(postgresql)
fi
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "installing system packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo=(sudo -n)
    else
        echo "error: ${missing[*]} missing and not root; install them: apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt-get may be running (a shared machine): wait for its locks, and retry.
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -qq)
for attempt in 1 2 3; do
    if "${apt[@]}" update </dev/null \
        && "${apt[@]}" install -y --no-install-recommends \
            -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" </dev/null; then
        exit 0
    fi
    echo "apt-get failed (attempt $attempt); retrying in 10 s" >&2
    sleep 10
done
echo "error: could not install ${missing[*]}" >&2
exit 1
