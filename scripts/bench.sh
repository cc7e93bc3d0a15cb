#!/usr/bin/env bash
# Benchmarks, side by side in one run: native figures (cargo bench --bench report), the wasm build,
# then wasm figures through Node and BENCHMARKS.md (pkg-tests/bench.mjs). FUZZ=1 also runs the
# long fuzz run (2,000,000 chunked runs) and records its summary. Not part of `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
echo "== cargo bench --bench report"
# Build the CLI first: with a lib and a bin of the same name, `cargo bench` can otherwise race on the lib's
# output file (cargo issue 6313) and fail to link.
cargo build --profile bench --bin chat-autoparser
cargo bench --bench report
if [ "${FUZZ:-}" = "1" ]; then
  echo "== fuzz_long"
  cargo run --profile bench --example fuzz_long -- 2000000 7 | tee target/fuzz-long.txt
fi
echo "== build wasm"
bash scripts/build.sh
if command -v twiggy >/dev/null; then
  echo "== size report (twiggy)"
  node scripts/size-report.mjs target/size-report.md
else
  echo "== no twiggy (cargo install twiggy): BENCHMARKS.md without the per-dependency size table"
  rm -f target/size-report.md
fi
echo "== node pkg-tests/bench.mjs"
node pkg-tests/bench.mjs
