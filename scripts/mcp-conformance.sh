#!/usr/bin/env bash
# The MCP conformance suite's scenarios that apply to Pigeonhole's MCP server, on both protocol
# revisions it serves, against a server started here (from the sources; no build needed):
#   2025-11-25  @modelcontextprotocol/conformance 0.1.16 (the stable release)
#   2026-07-28  @modelcontextprotocol/conformance 0.2.0-alpha.12 (the first with 2026-07-28
#               scenarios), with the extensions' scenarios (skills, tasks) forced on
# The suite needs Node 22 or newer; the machine may have Node 20, so it runs on the Node 24 that
# .ci/node24 installs from the npm registry, and each suite version is installed beside it in a
# cache folder, once. scripts/mcp-conformance-baseline.yml names the checks that cannot apply
# here (each says why). Exits 0 when every applicable check passed, 1 otherwise; the last line
# is "N passed, N failed" (scenarios).
set -uo pipefail
cd "$(dirname "$0")/.."

CACHE="${PIGEONHOLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pigeonhole}/mcp-conformance"
STABLE=0.1.16
NEXT=0.2.0-alpha.12

node=$(.ci/node24) || { echo "could not install Node 24 (.ci/node24)"; echo "0 passed, 1 failed"; exit 1; }
# Installs one suite version into $CACHE/<version> unless it is there already.
install() {
  local dir="$CACHE/$1"
  [ -f "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] && return 0
  mkdir -p "$dir" && echo '{"private":true}' >"$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund --no-save --allow-scripts= "@modelcontextprotocol/conformance@$1" >&2)
}
for version in "$STABLE" "$NEXT"; do
  install "$version" || { echo "could not install @modelcontextprotocol/conformance@$version"; echo "0 passed, 1 failed"; exit 1; }
done

# A server of its own, on free ports, with an empty data directory.
data="$(mktemp -d)"
ports=($(node -e "
const net = require('node:net');
const free = () => new Promise((ok) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => ok(p)); }); });
Promise.all([free(), free()]).then((p) => console.log(p.join(' ')));"))
node bin/pigeonhole.js --host 127.0.0.1 --http-port "${ports[0]}" --smtp-port "${ports[1]}" --data-dir "$data" >"$data/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$data"' EXIT
url="http://127.0.0.1:${ports[0]}"
for _ in $(seq 1 100); do
  curl -fsS "$url/livez" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "$url/livez" >/dev/null 2>&1 || { cat "$data/server.log"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
# run <suite version> <spec version> <scenario> [extra flags]
run() {
  local dir="$CACHE/$1"
  echo "== $3 ($2, conformance $1)"
  if "$node" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
    --url "$url/mcp" --scenario "$3" --spec-version "$2" --expected-failures scripts/mcp-conformance-baseline.yml "${@:4}" 2>&1 |
    grep -E 'FAILURE|WARNING|Passed:|Error|expected|baseline'; then :; fi
  if [ "${PIPESTATUS[0]}" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "   ^ failed"; fi
}

for scenario in server-initialize ping tools-list resources-list dns-rebinding-protection; do
  run "$STABLE" 2025-11-25 "$scenario"
done
for scenario in server-stateless tools-list resources-list dns-rebinding-protection caching http-header-validation sep-2164-resource-not-found; do
  run "$NEXT" 2026-07-28 "$scenario"
done
for scenario in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory tasks-capability-negotiation; do
  run "$NEXT" 2026-07-28 "$scenario" --force
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
