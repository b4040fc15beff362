#!/usr/bin/env bash
# `npm start`: install what is missing, build, then run n8n with this package (scripts/start.js).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
npm run build
bash scripts/n8n-app.sh
exec "$(bash scripts/node24.sh)" scripts/start.js
