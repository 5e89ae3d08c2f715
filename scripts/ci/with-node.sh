#!/usr/bin/env bash
# The Node.js Sous needs (package.json engines.node), whatever Node the machine has. When the `node`
# on PATH is older, the version pinned in .nvmrc is installed once from the npm registry, where the
# Node.js project publishes its official binaries as packages (node-<os>-<arch>), into .ci/node
# (git-ignored), and put first on PATH, so that `./sous` and `npm test` work from a fresh clone on a
# machine still on Node 20. A Node that is new enough is used as it is.
#
#   source scripts/ci/with-node.sh && sous_use_node <checkout>       (./sous)
#   source scripts/ci/with-node.sh && sous_use_node <checkout> exact (.ci/run: always the pinned version)
#   bash scripts/ci/with-node.sh <command> [args…]                    (npm test: runs the command under it)

sous_use_node() {
  local root="$1" exact="${2:-}"
  if [ "$exact" != exact ] && command -v node >/dev/null 2>&1 && node "$root/scripts/ci/check-node.js" 2>/dev/null; then return 0; fi
  local want os arch pkg have
  want="$(tr -d '[:space:]' < "$root/.nvmrc")"
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os="" ;; esac
  case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="" ;; esac
  if [ -z "$os" ] || [ -z "$arch" ] || ! command -v npm >/dev/null 2>&1; then
    # No package for this platform (or no npm to fetch it): say what is needed, in one line.
    if command -v node >/dev/null 2>&1; then node "$root/scripts/ci/check-node.js"; fi
    echo "sous: Node.js $want is required; install it (https://nodejs.org) and try again" >&2
    return 1
  fi
  pkg="$root/.ci/node/node_modules/node-$os-$arch"
  have="$("$pkg/bin/node" --version 2>/dev/null || true)"
  if [ "$have" != "v$want" ]; then
    echo "sous: Node.js $want is needed and this machine has $(node --version 2>/dev/null || echo none): installing it from the npm registry (node-$os-$arch) into .ci/node, once" >&2
    rm -rf "$root/.ci/node"
    npm install --prefix "$root/.ci/node" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-$os-$arch@$want" >&2 \
      || { echo "sous: could not install Node.js $want (npm install node-$os-$arch@$want); install Node.js $want yourself and try again" >&2; return 1; }
  fi
  export PATH="$pkg/bin:$PATH"
  # Native addons are built against this Node's headers (a machine-wide nodedir may name an older one).
  export npm_config_nodedir="$pkg"
  if [ "$exact" = exact ] && [ "$(node --version)" != "v$want" ]; then echo "sous: node on PATH is $(node --version), not v$want" >&2; return 1; fi
  node "$root/scripts/ci/check-node.js"
}

# Run as a command: bring the Node, then run the rest of the line under it.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  sous_use_node "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  exec "$@"
fi
