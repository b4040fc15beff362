#!/usr/bin/env bash
# `npm run bench`: builds, compiles the benchmark (it reuses the engine test harness), makes a
# self-signed certificate for the HTTPS sandbox (trusted by the benchmark's process only, through
# NODE_EXTRA_CA_CERTS), runs it under Node 24 and writes docs/benchmarks.md. Needs n8n-app/ for
# n8n's HTTP Request node. BENCH_ROUNDS (5), BENCH_ITEMS (2000) and BENCH_BIG_ITEMS (100000) scale it;
# SEND_ONCE_ROWS and SEND_ONCE_ROUNDS scale the Send Once runs in the real n8n (bench/sendOnceReal.js).
# `npm run bench -- status` runs only Get Status at the provider's pace (bench/status.ts) and replaces
# only its section of docs/benchmarks.md; BENCH_STATUS_ROUNDS=3 repeats it, BENCH_STATUS_BUSY=2 runs
# it again with two CPU-bound jobs beside it. `npm run bench -- --smoke` (CI runs it) runs every part
# with a few rows and one round (bench/scale.ts), fails if any run broke, and writes its report to
# .bench-build/benchmarks.md, never the docs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
if [ "${1:-}" = --smoke ]; then
	shift
	export BENCH_SMOKE=1
	echo "The benchmark's smoke run: every part, a few rows, one round; the report goes to .bench-build/, not the docs"
	send_once_time="smoke: about 2 minutes"
	run_time="smoke: one round, a few rows: about 1 minute"
else
	send_once_time="about 12 minutes"
	run_time="${BENCH_ROUNDS:-5} rounds, then the rate-limited and large runs: about 5 minutes"
fi
install_dev_dependencies
# Builds only when a source is newer than the last build: CI's smoke run shares dist/ with the suites.
node scripts/freshBuild.js
install_n8n_app
rm -rf .bench-build
node_modules/.bin/tsc -p tsconfig.json --outDir .bench-build
echo "Making a self-signed certificate for the HTTPS sandbox…"
NODE_EXTRA_CA_CERTS="$PWD/$(node scripts/selfSignedCert.js .bench-build/tls)"
export NODE_EXTRA_CA_CERTS
node24="$(node24_path)"
if [ "${1:-}" = status ]; then
	echo "Running only Get Status at the provider's pace (bench/status.ts: about 9 minutes a round, ${BENCH_STATUS_ROUNDS:-1} round(s), quiet${BENCH_STATUS_BUSY:+ and with ${BENCH_STATUS_BUSY} busy jobs})…"
	exec "$node24" .bench-build/bench/status.js
fi
echo "Send Once in the real n8n: SQLite, then PostgreSQL in queue mode ($send_once_time)…"
"$node24" bench/sendOnceReal.js .bench-build/send-once-sqlite.json
"$node24" bench/sendOnceReal.js .bench-build/send-once-queue.json --queue
echo "Running the benchmark ($run_time)…"
exec "$node24" --max-old-space-size=8192 .bench-build/bench/run.js
