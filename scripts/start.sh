#!/usr/bin/env bash
# `npm start`: install what is missing, build, then run n8n with this package (scripts/start.js).
# `npm start -- --queue`: the same in queue mode. `N8N_APP=n8n-app-1.x npm start`: the newest 1.x.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
install_dev_dependencies
npm run build
install_n8n_app
exec "$(node24_path)" scripts/start.js "$@"
