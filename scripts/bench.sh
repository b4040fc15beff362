#!/usr/bin/env bash
# `npm run bench`: builds, compiles the benchmark (it reuses the engine test harness), makes a
# self-signed certificate for the HTTPS sandbox (trusted by the benchmark's process only, through
# NODE_EXTRA_CA_CERTS), runs it under Node 24 and writes docs/benchmarks.md. Needs n8n-app/ for
# n8n's HTTP Request node. BENCH_ROUNDS (5), BENCH_ITEMS (2000) and BENCH_BIG_ITEMS (100000) scale it;
# SEND_ONCE_ROWS and SEND_ONCE_ROUNDS scale the Send Once runs in the real n8n (bench/sendOnceReal.js).
# `npm run bench -- status` runs only Get Status at the provider's pace (bench/status.ts) and replaces
# only its section of docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
install_dev_dependencies
npm run build
install_n8n_app
rm -rf .bench-build
node_modules/.bin/tsc -p tsconfig.json --outDir .bench-build
echo "Making a self-signed certificate for the HTTPS sandbox…"
NODE_EXTRA_CA_CERTS="$PWD/$(node scripts/selfSignedCert.js .bench-build/tls)"
export NODE_EXTRA_CA_CERTS
node24="$(node24_path)"
if [ "${1:-}" = status ]; then
	echo "Running only Get Status at the provider's pace (bench/status.ts: about 3 minutes)…"
	exec "$node24" .bench-build/bench/status.js
fi
echo "Send Once in the real n8n: SQLite, then PostgreSQL in queue mode (about 12 minutes)…"
"$node24" bench/sendOnceReal.js .bench-build/send-once-sqlite.json
"$node24" bench/sendOnceReal.js .bench-build/send-once-queue.json --queue
echo "Running the benchmark (${BENCH_ROUNDS:-5} rounds, then the rate-limited and large runs: about 5 minutes)…"
exec "$node24" --max-old-space-size=8192 .bench-build/bench/run.js
