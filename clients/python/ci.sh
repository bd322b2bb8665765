#!/usr/bin/env bash
# The Python client's suite as CI runs it (.ci/run): `ci.sh own|shared REPORT.xml`.
#   own     the pytest plugin starts a sandbox of its own in each of the 4 xdist workers;
#   shared  one sandbox for the whole run (python3 -m pigeonhole run), the 4 workers on it at once.
# Both install this package first (offline, no package index) and write a JUnit report that
# .ci/summary.mjs counts. Debian's /usr/bin/python3 has pytest, xdist and Django from apt; the
# python3 first on PATH may be another interpreter without them.
set -uo pipefail
cd "$(dirname "$0")"
mode=${1:?own or shared}
report=${2:?the JUnit report file}
python=/usr/bin/python3

# Into the system's site-packages as root (CI), into the user's otherwise.
user=(); [ "$(id -u)" = 0 ] || user=(--user)
"$python" -m pip install --quiet --break-system-packages --no-build-isolation --no-index "${user[@]}" . || exit 1
pytest=("$python" -m pytest -n 4 -p no:cacheprovider -rfEs "--junitxml=$report")
case "$mode" in
  own) env -u PIGEONHOLE_URL -u PIGEONHOLE_SMTP_PORT "${pytest[@]}" ;;
  shared) "$python" -m pigeonhole run -- "${pytest[@]}" ;;
  *) echo "ci.sh: own or shared, not $mode" >&2; exit 2 ;;
esac
