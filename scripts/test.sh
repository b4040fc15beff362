#!/usr/bin/env bash
# The whole check, from a fresh clone: install, build, lint, then every jest suite under Node 24
# (n8n needs it): the unit and engine suites on n8n 2.x, the engine suite again on each older n8n
# in engines/, the end-to-end suites in real n8n 2.41 (alone and in queue mode), and its editor in
# headless Chromium (Debian's package, installed when missing), and the benchmark in a small form.
#   npm test                 everything (what CI runs)
#   npm run test:unit        the fast loop: see below
#   npm test -- --1x         the end-to-end test in the real newest n8n 1.x (n8n-app-1.x/) only
#   npm test -- payload      extra arguments go to jest (after --unit or --1x too)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh

# Shows what a background job printed, and stops here if it failed.
finish_background() {
	local status=0
	wait "$1" || status=$?
	cat "$2"
	rm -f "$2"
	[ "$status" -eq 0 ] || step_failed "${3:-a background step}" "$status"
	return "$status"
}
# A step that fails ends the script, and the background jobs with it (npm and jest under them too).
kill_tree() {
	local child
	for child in $(pgrep -P "$1"); do kill_tree "$child"; done
	kill "$1" 2>/dev/null || true
}
# A red run ends with what failed: each failed step, and each failed suite and test with the first
# lines of its error (scripts/failureReporter.js writes them here), so that the log's tail says why.
TEST_FAILURES_DIR="$(mktemp -d)"
export TEST_FAILURES_DIR
summarise_failures() {
	local status=$1
	[ "$status" -ne 0 ] || { rm -rf "$TEST_FAILURES_DIR"; return; }
	echo
	echo "npm test failed (exit $status). What failed:"
	if [ -n "$(find "$TEST_FAILURES_DIR" -type f -size +0 2>/dev/null)" ]; then cat "$TEST_FAILURES_DIR"/*; else echo "(no test failed: the step above it did; see its output)"; fi
	# A full disk fails whichever step writes next, and this summary's own files with it.
	local dir free mount seen=""
	for dir in . "${TMPDIR:-/tmp}"; do
		read -r free mount <<<"$(free_megabytes "$dir")" || true
		[ -n "$free" ] && [ "$mount" != "$seen" ] || continue
		seen=$mount
		[ "$free" -ge 512 ] || echo "✕ the disk is full: ${free} MB free on $mount ($(cd "$dir" && pwd)); a run from a fresh clone needs about ${RUN_NEEDS_MB} MB"
	done
	rm -rf "$TEST_FAILURES_DIR"
}
# Records a failed step for the summary (a jest run's failed tests are recorded by its reporter).
step_failed() {
	{ echo "✕ step: $1 (exit $2)" >>"$TEST_FAILURES_DIR/steps.txt"; } 2>/dev/null || echo "✕ step: $1 (exit $2)"
}
# What a run from a fresh clone leaves in it (n8n, the older engines, Node 24, the dev dependencies),
# measured with du, and some room for the databases and logs of the suites.
RUN_NEEDS_MB=4500
# The MB free on the disk of folder $1, and its mount point (nothing when df cannot tell).
free_megabytes() { df -Pm "$1" 2>/dev/null | awk 'NR == 2 { print $4, $6 }' || true; }
if [ "${1:-}" != --unit ] && [ "${1:-}" != --1x ] && [ ! -d n8n-app/node_modules ]; then
	read -r free_now _ <<<"$(free_megabytes .)" || true
	[ -z "$free_now" ] || [ "$free_now" -ge "$RUN_NEEDS_MB" ] || echo "Warning: $free_now MB free on this disk; a run from a fresh clone writes about $RUN_NEEDS_MB MB."
fi
trap 'status=$?; for job in $(jobs -p); do kill_tree "$job"; done; summarise_failures "$status"' EXIT
# Runs each command (a string) at once, each into its own log; shows the logs in order when all
# have ended, and fails if one did. For steps that keep one core busy or wait on the disk.
together() {
	local command pids=() logs=() status=0 i
	for command in "$@"; do
		logs+=("$(mktemp)")
		bash -c "source scripts/setup.sh; $command" >"${logs[-1]}" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || {
			status=$?
			echo "Failed (exit $status): ${*:$((i + 1)):1}"
			step_failed "${*:$((i + 1)):1}" "$status"
		}
		cat "${logs[$i]}"
		rm -f "${logs[$i]}"
	done
	return "$status"
}

node24="$(node24_path)"
if [ "${1:-}" != --unit ] && [ "${1:-}" != --1x ]; then
	# n8n, and Chromium, Redis and PostgreSQL when missing, which only the end-to-end, queue-mode and
	# browser suites need, install in the background from the start, while the package is installed,
	# built, linted and tested in the engines: their downloads mostly wait on the network and the
	# disk. Their lines are shown when the first of those suites is about to start.
	echo "Installing n8n, and Debian's Chromium, Redis and PostgreSQL if missing, in the background"
	n8n_log="$(mktemp)"
	install_n8n_app >"$n8n_log" 2>&1 &
	n8n_install=$!
	packages_log="$(mktemp)"
	install_suite_packages 2>"$packages_log" >/dev/null &
	packages_install=$!
fi
install_dev_dependencies
jest=("$node24" node_modules/jest/bin/jest.js)

if [ "${1:-}" = "--unit" ]; then
	shift
	# The fast loop: the unit tests and the node in n8n 2.x's engine, from a built tree. It builds
	# only when a source is newer than the last build (scripts/freshBuild.js, which jest also runs
	# before the projects that load dist/), and leaves out what npm test adds: lint, the package
	# scan, the type check of the tests, the older engines, real n8n and the browser; the fuzz suite
	# takes 2,000 of its 10,000 rows.
	node scripts/freshBuild.js
	[ $# -eq 0 ] || jest+=(--passWithNoTests)
	# Four workers, as below.
	FAST_LOOP=1 "${jest[@]}" "$@" --maxWorkers=4 --selectProjects unit
	exit 0
fi
if [ "${1:-}" = "--1x" ]; then
	shift
	# Not part of `npm test`: installing a second n8n app adds about 5 minutes to every CI run.
	node scripts/freshBuild.js --force
	install_n8n_app n8n-app-1.x
	[ $# -eq 0 ] || jest+=(--passWithNoTests)
	"${jest[@]}" "$@" --runInBand --selectProjects e2e-1x
	exit 0
fi
node scripts/freshBuild.js --force
# Each of these keeps at most one core busy, or waits on the disk: on two cores, side by side. The
# package scan lints the packed tarball as n8n's scanner does; ts-jest only transpiles, so tsc
# type-checks the tests.
echo "Linting, scanning the packed tarball, type-checking the tests and installing the older engines, side by side…"
together "npm run lint && echo 'n8n-node lint: no problems'" "npm run lint:package" "node_modules/.bin/tsc --noEmit -p tsconfig.json" install_engines
[ $# -eq 0 ] || jest+=(--passWithNoTests)
# Arguments come before --selectProjects, which would take them as more project names. Four workers
# on two cores: the engine suites spend most of their time waiting on local servers and timers (a
# run of one engine on one worker keeps a third of a core busy). Their timing scenarios run on a
# simulated clock (test/flow/flowControl.test.ts), and the real-clock ones that are left have
# bounds that hold under load.
"${jest[@]}" "$@" --maxWorkers=4 --selectProjects unit
# The engine suite again on the older n8n, on two workers beside n8n's install and then the queue-mode
# suite, which mostly waits on its n8n processes and the sandbox's pace. Not beside the browser: with
# the engines, the end-to-end and browser suites and queue mode all at once on two cores, the test
# of Send Once across two workers saw 2 of 100 rows sent twice (docs/send-once.md). n8n 1.x before
# 1.8x cannot abort its sleep timers: they run out by themselves after the last test, so the older
# engines' run ends without waiting for them.
older=$(cd engines && echo *)
older_log="$(mktemp)"
echo "The engine suite again, on older n8n ($older), beside the queue-mode suite: shown when it ends (jest's \"Force exiting\" and \"failed to exit gracefully\" after it are n8n 1.x's sleep timers, expected)"
"${jest[@]}" "$@" --maxWorkers=2 --forceExit --selectProjects $older >"$older_log" 2>&1 &
older_run=$!
finish_background "$n8n_install" "$n8n_log" "installing n8n"
finish_background "$packages_install" "$packages_log" "installing Debian's packages"
status=0
"${jest[@]}" "$@" --runInBand --selectProjects queue || status=$?
finish_background "$older_run" "$older_log" "the engine suite on older n8n" || status=$?
# Then the end-to-end and browser suites side by side, each in a jest of its own (in band, as
# alone), and beside them the benchmark's smoke run (every part with a few rows, its report under
# .bench-build/), so that a change that breaks the benchmark is red: each starts its own n8n on
# ports of its own, and all mostly wait on n8n, the sandbox and the browser. A run of only some
# suites (`npm test -- payload`) leaves the benchmark out.
in_band="$(printf '%q ' "${jest[@]}" "$@") --runInBand --selectProjects"
if [ $# -eq 0 ]; then
	together "$in_band e2e" "$in_band browser" "bash scripts/bench.sh --smoke" || status=$?
else
	together "$in_band e2e" "$in_band browser" || status=$?
fi
[ "$status" -ne 0 ] || echo "npm test: every step passed."
exit "$status"
