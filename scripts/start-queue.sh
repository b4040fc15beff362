#!/usr/bin/env bash
# `npm run start:queue`: as `npm start`, in n8n's queue mode (scripts/start-queue.js).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
npm run build
bash scripts/n8n-app.sh
exec "$(bash scripts/node24.sh)" scripts/start-queue.js
