#!/usr/bin/env bash
# Installs the older n8n engines the engine suite also runs against (engines/<n8n version>/: that
# version's n8n-core and n8n-workflow, each folder with its own lockfile), when missing or stale.
# The newest engine, 2.x, is the project's own dev dependency.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../engines"
source ../scripts/progress.sh
for engine in */; do
	engine="${engine%/}"
	if [ ! -f "$engine/node_modules/.package-lock.json" ] || [ "$engine/package-lock.json" -nt "$engine/node_modules/.package-lock.json" ]; then
		# No install scripts: the engine suite needs none of the native modules they would build.
		step "Installing the $engine engine (n8n-core, n8n-workflow) into engines/$engine (about 15 s)" \
			bash -c "cd '$engine' && npm ci --ignore-scripts --no-audit --no-fund"
	fi
done
