#!/usr/bin/env bash
# Installs the real n8n (n8n-app/, its own pinned package.json and lockfile) when missing or
# stale, and builds the one native module n8n needs to start, its SQLite driver, against Node 24.
# N8N_APP=n8n-app-1.x: the same for the newest 1.x.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node24="$(bash "$root/scripts/node24.sh")"
source "$root/scripts/progress.sh"
app="${N8N_APP:-n8n-app}"   # n8n-app (2.x) or n8n-app-1.x
cd "$root/$app"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	# Not `npm ci`: the lockfile lacks a few optional platform packages (darwin, win32, arm) that
	# this registry copy cannot resolve, which `npm ci` refuses. `npm install` follows the same
	# lockfile; --no-save keeps it from writing the platform entries it adds back into it.
	step "Installing n8n into $app/ (first time only: about 2 minutes)" npm install --no-save --no-audit --no-fund
fi
sqlite_version() { node -p "require('./$1/node_modules/sqlite3/package.json').version" 2>/dev/null || true; }
if ! "$node24" -e "require('sqlite3')" >/dev/null 2>&1 && [ "$app" != n8n-app ] \
	&& "$node24" -e "require('$root/n8n-app/node_modules/sqlite3')" >/dev/null 2>&1 \
	&& [ "$(cd "$root" && sqlite_version n8n-app)" = "$(cd "$root" && sqlite_version "$app")" ]; then
	# The same sqlite3 version, already built for Node 24 in n8n-app/: its N-API build fits as is.
	echo "Using n8n-app/'s SQLite driver build (same sqlite3 version) for $app/"
	rm -rf node_modules/sqlite3/build && cp -r "$root/n8n-app/node_modules/sqlite3/build" node_modules/sqlite3/build
fi
if ! "$node24" -e "require('sqlite3')" >/dev/null 2>&1; then
	headers="$(cd "$(dirname "$node24")/.." && pwd)"
	[ -d "$headers/include/node" ] || headers="$(cd "$(dirname "$(bash "$root/scripts/node24.sh" --fetched)")/.." && pwd)"
	# node-gyp reads the headers' location from npm_config_nodedir (not passed as --nodedir, which
	# npm warns it will stop passing on).
	PATH="$(dirname "$node24"):$PATH" npm_config_nodedir="$headers" \
		step "Building n8n's SQLite driver for Node 24 (first time only: about 1 to 2 minutes)" npm rebuild sqlite3 --ignore-scripts=false
fi
