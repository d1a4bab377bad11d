#!/usr/bin/env bash
# Installs what `make test` needs, when it is missing:
#   - PostgreSQL server binaries (Debian package postgresql; store/pgtest runs
#     a private cluster from /usr/lib/postgresql/*/bin),
#   - Chromium's headless shell (Debian package chromium-headless-shell) for
#     the e2e tests,
#   - Node.js and npm, only when node is missing,
#   - the Playwright driver: npm package playwright-core (exactly the version
#     playwright-go expects) in e2e/node, linked with node into
#     .cache/playwright-driver (PLAYWRIGHT_DRIVER_PATH),
#   - axe-core (the accessibility rules the e2e tests run in each page) in
#     e2e/node, beside playwright-core,
#   - the Canton Network wallet SDK (@canton-network/wallet-sdk), whose
#     guide's flows e2e/sdk_test.go runs, in e2e/node too,
#   - Ory Hydra, the independent OpenID Provider of e2e/hydra_test.go:
#     built from the module proxy once per version (e2e/hydra/go.mod pins
#     it) into .cache/hydra/hydra-VERSION.
# Idempotent, and quick when everything is there: apt-get update runs once, and
# only when something must be installed through apt. Run as root, or as a user
# with sudo.
set -euo pipefail

# playwright-go v0.5200.1 drives playwright-core 1.52.0; keep them in step.
PLAYWRIGHT_CORE_VERSION=1.52.0
# The e2e tests read e2e/node/node_modules/axe-core/axe.min.js.
AXE_CORE_VERSION=4.14.1
# The Canton Network wallet SDK, whose integration guide's flows
# e2e/sdk_test.go runs (pino, which the script's logger is, comes with it).
WALLET_SDK_VERSION=0.20.0

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NODE_PREFIX="$ROOT/e2e/node"
DRIVER="${PLAYWRIGHT_DRIVER_PATH:-$ROOT/.cache/playwright-driver}"

say() { printf 'deps: %s\n' "$*"; }

SUDO=()
as_root() {
	if [ "$(id -u)" -ne 0 ] && [ ${#SUDO[@]} -eq 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			SUDO=(sudo)
		else
			say "need root or sudo to install: $*" >&2
			exit 1
		fi
	fi
	"${SUDO[@]}" "$@"
}

# quiet CMD...: runs CMD, shows its output only when it fails.
quiet() {
	local out rc=0
	out="$("$@" 2>&1)" || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" >&2
		say "failed ($rc): $*" >&2
		exit "$rc"
	fi
}

APT_UPDATED=
apt_install() {
	if [ -z "$APT_UPDATED" ]; then
		quiet as_root env DEBIAN_FRONTEND=noninteractive apt-get update
		APT_UPDATED=1
	fi
	quiet as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

# The newest /usr/lib/postgresql/*/bin that holds initdb, or nothing.
pg_bindir() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5 -rn); do
		if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
			echo "$d"
			return
		fi
	done
}

# The installed version of an npm package in e2e/node, or nothing.
npm_version() { # npm_version NAME
	local pkg_json="$NODE_PREFIX/node_modules/$1/package.json"
	if [ -f "$pkg_json" ]; then
		sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$pkg_json" | head -n1
	fi
}
# npm_needed: true when a pinned npm package is missing or at another version.
npm_needed() {
	[ "$(npm_version playwright-core)" != "$PLAYWRIGHT_CORE_VERSION" ] || [ "$(npm_version axe-core)" != "$AXE_CORE_VERSION" ] ||
		[ "$(npm_version @canton-network/wallet-sdk)" != "$WALLET_SDK_VERSION" ]
}

# Everything that comes from apt, gathered so that apt runs once.
apt_pkgs=()
if [ -z "$(pg_bindir)" ]; then apt_pkgs+=(postgresql); fi
# The headless shell (as Playwright runs headless tests): the full
# browser's headless mode also runs its own UI and cost the e2e suite more
# CPU. The e2e tests fall back to /usr/bin/chromium where it is missing.
# Where the full browser is there already, the shell is tried on its own
# and a failure only warns.
shell_optional=
if [ ! -x /usr/bin/chromium-headless-shell ]; then
	if [ -x /usr/bin/chromium ]; then shell_optional=1; else apt_pkgs+=(chromium-headless-shell); fi
fi
if ! command -v node >/dev/null 2>&1; then
	apt_pkgs+=(nodejs npm)
elif ! command -v npm >/dev/null 2>&1 && npm_needed; then
	apt_pkgs+=(npm) # node without npm (Debian splits them), and npm is needed
fi

if [ ${#apt_pkgs[@]} -gt 0 ]; then
	say "installing with apt: ${apt_pkgs[*]}"
	apt_install "${apt_pkgs[@]}"
fi

bindir="$(pg_bindir)"
if [ -z "$bindir" ]; then
	say "postgresql installed, but no initdb under /usr/lib/postgresql/*/bin" >&2
	exit 1
fi
say "postgresql: $bindir"
if ! id postgres >/dev/null 2>&1; then
	say "warning: no OS user postgres; tests run as root need it (initdb refuses root)" >&2
fi

if [ -n "$shell_optional" ]; then
	say "installing with apt: chromium-headless-shell"
	(apt_install chromium-headless-shell) ||
		say "warning: chromium-headless-shell not installed; the e2e tests use /usr/bin/chromium (more CPU)" >&2
fi
chromium=/usr/bin/chromium-headless-shell
[ -x "$chromium" ] || chromium=/usr/bin/chromium
[ -x "$chromium" ] || { say "chromium-headless-shell missing after install" >&2; exit 1; }
say "chromium: $("$chromium" --version 2>/dev/null || echo "$chromium")"

NODE="$(command -v node)"
say "node: $NODE $(node --version)"

# playwright-core, axe-core and the wallet SDK, at exactly the pinned
# versions. One npm run resolves them together (three runs took 66 s in a
# fresh clone, one 33 s), and a copy kept outside the checkout by their
# versions serves the next fresh clone (CI's) in about 2 s.
NPM_KEPT="${XDG_CACHE_HOME:-$HOME/.cache}/ccwallet/e2e-node-$PLAYWRIGHT_CORE_VERSION-$AXE_CORE_VERSION-$WALLET_SDK_VERSION"
if npm_needed && [ -f "$NPM_KEPT/node_modules/axe-core/axe.min.js" ]; then
	say "copying the npm packages into e2e/node from $NPM_KEPT"
	rm -rf "$NODE_PREFIX"
	cp -a "$NPM_KEPT" "$NODE_PREFIX"
fi
if npm_needed; then
	say "installing playwright-core@$PLAYWRIGHT_CORE_VERSION, axe-core@$AXE_CORE_VERSION and @canton-network/wallet-sdk@$WALLET_SDK_VERSION into e2e/node"
	mkdir -p "$NODE_PREFIX"
	quiet npm install --prefix "$NODE_PREFIX" --save-exact --no-audit --no-fund --prefer-offline \
		"playwright-core@$PLAYWRIGHT_CORE_VERSION" "axe-core@$AXE_CORE_VERSION" "@canton-network/wallet-sdk@$WALLET_SDK_VERSION"
	# Kept only when complete: copied under a temporary name, then moved.
	if mkdir -p "$(dirname "$NPM_KEPT")" 2>/dev/null && cp -a "$NODE_PREFIX" "$NPM_KEPT.tmp.$$" 2>/dev/null; then
		rm -rf "$NPM_KEPT" && mv "$NPM_KEPT.tmp.$$" "$NPM_KEPT" || rm -rf "$NPM_KEPT.tmp.$$"
	fi
fi
say "playwright-core $(npm_version playwright-core), axe-core $(npm_version axe-core), wallet SDK $(npm_version @canton-network/wallet-sdk) (e2e/node)"
npm_needed && { say "npm packages in e2e/node not at the pinned versions after install" >&2; exit 1; }
[ -f "$NODE_PREFIX/node_modules/axe-core/axe.min.js" ] || { say "axe-core/axe.min.js missing" >&2; exit 1; }

# The driver directory playwright-go runs: package/cli.js and node.
mkdir -p "$DRIVER"
link() { # link NAME TARGET
	if [ "$(readlink "$DRIVER/$1" 2>/dev/null || true)" != "$2" ]; then
		ln -sfn "$2" "$DRIVER/$1"
	fi
}
link package "$NODE_PREFIX/node_modules/playwright-core"
link node "$NODE"
[ -f "$DRIVER/package/cli.js" ] || { say "$DRIVER/package/cli.js missing" >&2; exit 1; }
say "playwright driver: $DRIVER"

# Ory Hydra: its own module (e2e/hydra/go.mod, a tool directive) keeps its
# dependencies out of ccwallet's go.mod. Building takes minutes once; the
# binary is cached by version.
HYDRA_VERSION="$(sed -n 's#^[[:space:]]*github.com/ory/hydra/v2 \(v[^[:space:]]*\).*#\1#p' "$ROOT/e2e/hydra/go.mod" | head -n1)"
[ -n "$HYDRA_VERSION" ] || { say "e2e/hydra/go.mod requires no github.com/ory/hydra/v2" >&2; exit 1; }
HYDRA_BIN="$ROOT/.cache/hydra/hydra-$HYDRA_VERSION"
if [ ! -x "$HYDRA_BIN" ]; then
	say "building hydra $HYDRA_VERSION (once per version; a few minutes)"
	mkdir -p "$ROOT/.cache/hydra"
	(cd "$ROOT/e2e/hydra" && quiet go build -tags sqlite,sqlite_omit_load_extension -o "$HYDRA_BIN.tmp" github.com/ory/hydra/v2)
	mv "$HYDRA_BIN.tmp" "$HYDRA_BIN"
fi
say "hydra: $HYDRA_BIN"
