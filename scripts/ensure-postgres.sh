#!/usr/bin/env bash
# Make sure a PostgreSQL server answers on 127.0.0.1:5432 for the storage tests: start the
# local cluster, or install one from the distribution's packages when there is none. Test
# machines only: a fresh install is set to trust local TCP connections.
set -uo pipefail

ready() { command -v pg_isready >/dev/null 2>&1 && pg_isready -h 127.0.0.1 -p 5432 -q; }

ready && exit 0
if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-postgres: no PostgreSQL and no way to install it; PostgreSQL tests will skip" >&2
    exit 0
  fi
  echo "ensure-postgres: installing PostgreSQL" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
  done
fi
for version in $(ls /etc/postgresql); do
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || true
done
for _ in $(seq 40); do ready && exit 0; sleep 0.5; done
echo "ensure-postgres: PostgreSQL did not start; PostgreSQL tests will skip" >&2
exit 0
