#!/usr/bin/env bash
# Usage: scripts/fetch-node.sh MAJOR DIR
# Installs the latest Node.js MAJOR.x from the npm registry into DIR and prints the folder that holds
# its `node` binary (put it first in PATH). The binary comes from the `node-<platform>-<arch>`
# package, which ships it as is: no install script, nothing to build. npm's cache makes a second
# fetch of the same version local.
set -euo pipefail
major="$1"
dir="$2"
platform_arch="$(node -p 'process.platform + "-" + process.arch')"
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name":"node-runtime","private":true}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --no-save --prefer-offline --loglevel=error "node-$platform_arch@$major" >&2
bin="$dir/node_modules/node-$platform_arch/bin"
"$bin/node" --version >/dev/null
echo "$bin"
