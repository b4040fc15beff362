#!/usr/bin/env bash
# The whole check, from a fresh clone: install, build, lint, then every jest suite under Node 24
# (n8n needs it): the unit and engine suites on n8n 2.x, the engine suite again on each older n8n
# in engines/, the end-to-end suite in real n8n 2.41, and its editor in headless Chromium (Debian's
# package, installed when missing). (`npm run test:1x`: the real n8n 1.x.)
#   npm test                 everything (what CI runs)
#   npm run test:unit        without real n8n (no n8n install needed)
#   npm test -- payload      extra arguments go to jest
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
without_app=false
if [ "${1:-}" = "--unit" ]; then
	shift
	without_app=true
fi
bash scripts/install.sh
npm run build
npm run lint
npm run lint:package                               # the packed tarball, as n8n's scanner lints it
node_modules/.bin/tsc --noEmit -p tsconfig.json   # ts-jest only transpiles: type-check the tests here
bash scripts/engines.sh
$without_app || bash scripts/n8n-app.sh
$without_app || bash scripts/chromium.sh >/dev/null
node24="$(bash scripts/node24.sh)"
jest=("$node24" node_modules/jest/bin/jest.js)
[ $# -eq 0 ] || jest+=(--passWithNoTests)
# Arguments come before --selectProjects, which would take them as more project names.
"${jest[@]}" "$@" --selectProjects unit
# n8n 1.x before 1.8x cannot abort its sleep timers: they run out by themselves after the last
# test, so this run ends without waiting for them.
older=$(cd engines && echo *)
echo "The engine suite again, on older n8n: $older"
"${jest[@]}" "$@" --forceExit --selectProjects $older
# One real n8n set-up at a time: together they would share two cores with each other's load.
$without_app || "${jest[@]}" "$@" --runInBand --selectProjects e2e
$without_app || "${jest[@]}" "$@" --runInBand --selectProjects browser
