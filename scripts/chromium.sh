#!/usr/bin/env bash
# Prints the path of a Chromium for the browser tests, installing Debian's package when there is
# none (apt-get; root, or sudo without a password). CHROMIUM_PATH overrides.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/progress.sh"
find_chromium() {
	for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
		if [ -n "$candidate" ] && [ -x "$candidate" ]; then
			echo "$candidate"
			return 0
		fi
	done
	return 1
}
if find_chromium; then exit 0; fi
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
step "Installing Debian's Chromium for the browser tests (first time only: about 1 to 2 minutes)" >&2 \
	bash -c "${sudo[*]} apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo[*]} apt-get install -y -qq --no-install-recommends chromium"
find_chromium || { echo "Chromium could not be installed: install Debian's chromium package, or set CHROMIUM_PATH" >&2; exit 1; }
