#!/usr/bin/env bash
# The whole check, from a fresh clone: install, build, lint, then every jest suite under
# Node 24 (n8n's engine needs it). Extra arguments go to jest, e.g. `npm test -- payload`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
npm run build
npm run lint
node24="$(bash scripts/node24.sh)"
"$node24" node_modules/jest/bin/jest.js "$@"
