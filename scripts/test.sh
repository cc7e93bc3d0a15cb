#!/usr/bin/env bash
# The whole test suite, from a fresh clone: install what is missing, Rust tests (unit + conformance
# over ../shared), build the wasm package, Node tests over the built package (incl. the browser test).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
echo; echo "== cargo test"
log=target/cargo-test.log
mkdir -p target
cargo test --all-targets -- --nocapture 2>&1 | grep -v '^\s*Compiling' | tee "$log" \
  | grep -E '^(test result|renders:|caps:|analysis|cases|stream|grammar|[a-z_ -]+: [0-9]+/[0-9]+)|FAILED|panicked' || true
if grep -qE 'FAILED|error(\[E[0-9]+\])?:' "$log" || ! grep -q '^test result' "$log"; then
  echo "cargo test failed; see "$log""; tail -60 "$log"; exit 1
fi
# The core must not depend on wasm crates when built natively.
if cargo tree -e normal 2>/dev/null | grep -q wasm-bindgen; then echo "wasm-bindgen leaked into the native build"; exit 1; fi
echo; echo "== build wasm"
bash scripts/build.sh
echo; echo "== node --test pkg-tests/"
node --test --test-reporter=spec pkg-tests/
