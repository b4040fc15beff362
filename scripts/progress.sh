#!/usr/bin/env bash
# Sourced by the installers. `step "What is done (how long it usually takes)" command…` prints the
# line, then a line every 15 s while the command runs, then how long it took; the command's own
# output goes to a log file, shown only if it fails (npm's warnings on a good install, such as
# isolated-vm's "EBADENGINE … node >=24" while npm itself runs on Node 20, only alarm).
step() {
	local label="$1"
	shift
	local log
	log="$(mktemp)"
	local started=$SECONDS
	echo "$label…"
	( while sleep 15; do echo "  … still working ($((SECONDS - started)) s)"; done ) &
	local ticker=$!
	local status=0
	"$@" >"$log" 2>&1 || status=$?
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "  failed after $((SECONDS - started)) s (exit $status); its output:"
		cat "$log"
		rm -f "$log"
		return "$status"
	fi
	echo "  done in $((SECONDS - started)) s"
	rm -f "$log"
}
