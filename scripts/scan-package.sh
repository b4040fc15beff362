#!/usr/bin/env bash
# Packs the package as npm would publish it, unpacks it, and lints what is inside the way n8n's
# community-package scanner does (eslint.scan.config.mjs). Run after `npm run build`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf .scan && mkdir -p .scan
tarball="$(npm pack --silent --pack-destination .scan 2>/dev/null | tail -n 1)"
tar -xzf ".scan/$tarball" -C .scan
node_modules/.bin/eslint --no-config-lookup --config eslint.scan.config.mjs --max-warnings 0 ".scan/package/**/*.js" .scan/package/package.json
echo "Scanned $tarball: clean"
