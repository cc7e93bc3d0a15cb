#!/usr/bin/env bash
# Refresh the vendored reference corpus (tests/fixtures/{conformance,bench}) from ../shared, or with
# --check only report whether the two differ (exit 1 if they do; 0 with a note when ../shared is absent).
# Tests, benches, the fuzz support and the Node tests read only the vendored copy, so a clone of the
# repository alone can run them; tests/fixtures_in_sync.rs runs the same comparison under `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${CHAT_AUTOPARSER_SHARED:-../shared}"
dirs=(conformance bench)
if [ ! -d "$shared" ]; then
  echo "refresh-fixtures: $shared not found; the vendored copy in tests/fixtures stays as it is"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  status=0
  for d in "${dirs[@]}"; do diff -rq "$shared/$d" "tests/fixtures/$d" || status=1; done
  if [ "$status" -ne 0 ]; then echo "tests/fixtures differs from $shared: run scripts/refresh-fixtures.sh"; fi
  exit "$status"
fi
for d in "${dirs[@]}"; do
  rm -rf "tests/fixtures/$d"
  cp -R "$shared/$d" "tests/fixtures/$d"
  chmod -R u+w "tests/fixtures/$d"  # the source may be read-only
done
echo "tests/fixtures refreshed from $shared ($(du -sh tests/fixtures | cut -f1)); review with git status / git diff --stat"
