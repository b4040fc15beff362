#!/usr/bin/env bash
# The whole check, from a fresh clone: install, build, lint, then every jest suite under Node 24
# (n8n needs it), the end-to-end suite in real n8n included.
#   npm test                 everything (what CI runs)
#   npm run test:unit        without real n8n (no n8n install needed)
#   npm test -- payload      extra arguments go to jest
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
projects=()
if [ "${1:-}" = "--unit" ]; then
	shift
	projects=(--selectProjects unit)
fi
bash scripts/install.sh
npm run build
npm run lint
npm run lint:package                               # the packed tarball, as n8n's scanner lints it
node_modules/.bin/tsc --noEmit -p tsconfig.json   # ts-jest only transpiles: type-check the tests here
[ ${#projects[@]} -gt 0 ] || bash scripts/n8n-app.sh
node24="$(bash scripts/node24.sh)"
jest=("$node24" node_modules/jest/bin/jest.js)
[ $# -eq 0 ] || jest+=(--passWithNoTests)
if [ ${#projects[@]} -gt 0 ]; then
	"${jest[@]}" "${projects[@]}" "$@"
else
	"${jest[@]}" --selectProjects unit "$@"
	# One real n8n set-up at a time: together they would share two cores with each other's load.
	"${jest[@]}" --selectProjects e2e --runInBand "$@"
fi
