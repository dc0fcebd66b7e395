#!/usr/bin/env bash
# Prints the bin directory of one Node.js release, taken from the npm registry's node-linux-<arch>
# package (the official binary, as npm ships it) and cached under
# ${XDG_CACHE_HOME:-~/.cache}/kpt-ts/node/v<version>/. Nothing is downloaded from anywhere else.
#   bash scripts/node-line.sh 22.23.3        ->  ~/.cache/kpt-ts/node/v22.23.3/bin
# .ci/run uses it to run the tests under each supported Node line; put the directory first on PATH.
set -euo pipefail

version=${1:?usage: scripts/node-line.sh <exact version, e.g. 22.23.3>}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-line: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
dir="${XDG_CACHE_HOME:-$HOME/.cache}/kpt-ts/node/v$version"

if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" --version 2>/dev/null)" != "v$version" ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/kpt-ts-node-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "[node-line] fetching node-linux-$arch@$version from the npm registry (once)" >&2
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  tar -xzf "$tmp"/node-linux-"$arch"-"$version".tgz -C "$tmp" package/bin/node package/LICENSE
  mkdir -p "$dir.tmp.$$/bin"
  mv "$tmp/package/bin/node" "$dir.tmp.$$/bin/node"
  mv "$tmp/package/LICENSE" "$dir.tmp.$$/LICENSE"
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && mv "$dir.tmp.$$" "$dir"
  [ "$("$dir/bin/node" --version)" = "v$version" ] || { echo "node-line: $dir/bin/node is not v$version" >&2; exit 1; }
fi
echo "$dir/bin"
