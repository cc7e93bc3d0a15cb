#!/usr/bin/env bash
# The whole test suite, from a fresh clone: install what is missing, Rust tests (unit + conformance
# over tests/fixtures), build the wasm package, Node tests over the built package (incl. the browser test).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
echo; echo "== cargo test"
mkdir -p target
log=target/cargo-test.log
# Full output goes to the log; the console gets the summaries and conformance figures.
status=0
cargo test --lib --bins --tests -- --nocapture >"$log" 2>&1 || status=$?
grep -E '^(test result|zoo |[A-Za-z][^:]*: [0-9]+ ?/ ?[0-9]+)|FAILED|panicked' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "cargo test failed (exit $status); last lines of $log:"; tail -80 "$log"; exit "$status"
fi
cargo test --doc >>"$log" 2>&1 || { echo "doc tests failed"; tail -40 "$log"; exit 1; }
# The core must not depend on wasm crates when built natively.
if cargo tree -e normal 2>/dev/null | grep -q wasm-bindgen; then echo "wasm-bindgen leaked into the native build"; exit 1; fi
# The parse-only runtime (chat-autoparser/parser, issue #28) builds without the template engine, the analysis,
# grammars and response templates: natively and for wasm, with nothing but serde and serde_json.
echo; echo "== parse-only build (--no-default-features --features parser)"
cargo check --quiet --lib --no-default-features --features parser
cargo check --quiet --lib --no-default-features --features parser --target wasm32-unknown-unknown
if cargo tree -e normal --no-default-features --features parser 2>/dev/null | grep -Eq 'minijinja|regex'; then
  echo "the template engine or the regex engine leaked into the parse-only build"; exit 1
fi
echo; echo "== jinja_diff: generated templates rendered by us and by Python Jinja2 (transformers' environment)"
# CI-sized: a fixed seed, at most 100 s; long runs by hand (BENCHMARKS.md "Differential template fuzzing").
cargo run --quiet --example jinja_diff -- 3000 "${JINJA_DIFF_SEED:-27}" --budget-secs 100
echo; echo "== response_template cross-check against transformers' parse_response"
python3 scripts/response_template_crosscheck.py
echo; echo "== build wasm"
bash scripts/build.sh
echo; echo "== tsc --noEmit (every export, against the shipped declarations)"
npx --no-install tsc -p pkg-tests/types
# The adapter subpaths against the SDKs' own types (ai 6, ai 7, openai): pkg-tests/fresh-projects.test.mjs,
# in projects that install the packed package.
echo "types ok"
echo; echo "== node --test pkg-tests/"
node --test --test-reporter=spec pkg-tests/
