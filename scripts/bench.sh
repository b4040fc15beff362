#!/usr/bin/env bash
# `npm run bench`: builds, compiles the benchmark (it reuses the engine test harness), runs it
# under Node 24 and writes docs/benchmarks.md. Needs n8n-app/ for n8n's HTTP Request node.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
npm run build
bash scripts/n8n-app.sh
rm -rf .bench-build
node_modules/.bin/tsc -p tsconfig.bench.json
exec "$(bash scripts/node24.sh)" --max-old-space-size=8192 .bench-build/bench/run.js
