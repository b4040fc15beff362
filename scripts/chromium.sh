#!/usr/bin/env bash
# Prints the path of a Chrome or Chromium for the browser tests: CHROMIUM_PATH, else the first one
# installed in a usual place; only when there is none, Debian's chromium package (apt-get; root, or
# sudo without a password).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/progress.sh"
find_chromium() {
	local candidate
	for candidate in "${CHROMIUM_PATH:-}" \
		"$(command -v chromium || true)" "$(command -v chromium-browser || true)" \
		"$(command -v google-chrome || true)" "$(command -v google-chrome-stable || true)" \
		/usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome /snap/bin/chromium \
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
		"/Applications/Chromium.app/Contents/MacOS/Chromium"; do
		if [ -n "$candidate" ] && [ -x "$candidate" ]; then
			echo "$candidate"
			return 0
		fi
	done
	return 1
}
if find_chromium; then exit 0; fi
if ! command -v apt-get >/dev/null; then
	echo "No Chrome or Chromium found for the browser tests: install one, or set CHROMIUM_PATH to its binary" >&2
	exit 1
fi
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
step "Installing Debian's Chromium for the browser tests (first time only: about 1 to 2 minutes)" >&2 \
	bash -c "${sudo[*]} apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo[*]} apt-get install -y -qq --no-install-recommends chromium"
find_chromium || { echo "Chromium could not be installed: install Debian's chromium package, or set CHROMIUM_PATH" >&2; exit 1; }
