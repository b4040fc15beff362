#!/usr/bin/env bash
# Installs the dev dependencies from the lockfile when node_modules is missing or older than it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/progress.sh
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	step "Installing the dev dependencies (npm ci, about 30 s)" npm ci --no-audit --no-fund
fi
