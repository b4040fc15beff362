#!/usr/bin/env bash
# `npm start`: install what is missing, build, then run n8n with this package (scripts/start.js).
# `npm start -- --queue`: the same in queue mode. `N8N_APP=n8n-app-1.x npm start`: the newest 1.x.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
# Before anything is installed or rebuilt: a second start would rebuild dist/ under a running n8n.
# The sandbox runs unless the real API is set.
node scripts/portsFree.js "${N8N_PORT:-5678}" $([ -n "${TEMPLATE_MESSAGE_BASE_URL:-}" ] || echo "${SANDBOX_PORT:-5680}")
started=$SECONDS
install_dev_dependencies
step "Building the package (dist/, about 10 s)" npm run build
install_n8n_app
echo "Installed and built in $((SECONDS - started)) s; starting."
exec "$(node24_path)" scripts/start.js "$@"
