#!/usr/bin/env bash
# Make sure Debian's Chromium is at /usr/bin/chromium for the browser tests (Playwright drives
# it; no browser is downloaded). Installs it from the distribution's packages when missing.
set -uo pipefail

[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: no Chromium and no way to install it; browser tests will skip" >&2
  exit 0
fi
echo "ensure-chromium: installing chromium" >&2
apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
[ -x /usr/bin/chromium ] || echo "ensure-chromium: install failed; browser tests will skip" >&2
exit 0
