#!/usr/bin/env bash
# `npm run test:1x`: the end-to-end test in the real newest n8n 1.x (n8n-app-1.x/). Not part of
# `npm test`: installing a second n8n app adds about 5 minutes to every CI run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
install_dev_dependencies
npm run build
install_n8n_app n8n-app-1.x
"$(node24_path)" node_modules/jest/bin/jest.js --selectProjects e2e-1x --runInBand "$@"
