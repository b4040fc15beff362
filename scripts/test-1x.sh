#!/usr/bin/env bash
# `npm run test:1x`: the end-to-end test in the real newest n8n 1.x (n8n-app-1.x/). Not part of
# `npm test`: installing a second n8n app adds about 5 minutes to every CI run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
npm run build
N8N_APP=n8n-app-1.x bash scripts/n8n-app.sh
"$(bash scripts/node24.sh)" node_modules/jest/bin/jest.js --selectProjects e2e-1x --runInBand "$@"
