#!/usr/bin/env bash
# Installs the dev dependencies from the lockfile when node_modules is missing or older than it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "Installing dev dependencies (npm ci)…"
	npm ci --no-audit --no-fund
fi
