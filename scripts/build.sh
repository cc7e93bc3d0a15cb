#!/usr/bin/env bash
# Build the wasm package: one wasm (pkg/web/chat_autoparser_bg.wasm) behind three entries made from
# wasm-bindgen's glue and the hand-written facade (scripts/bundle-js.mjs): pkg/web (ESM for browsers and
# bundlers), pkg/node (CommonJS, plus an ESM re-export), and a copy of the web entry in www/pkg for the playground.
#
# Size (issue #15: ≤ 400 KB gzipped): std is compiled here with our release profile (`-Z build-std`, needs the
# toolchain's rust-src: scripts/setup.sh) instead of linking the prebuilt one, with
#   -C panic=immediate-abort   a panic is a bare `unreachable` trap: no panic message formatting, no
#                              location strings, no panic hook. The JS facade already turns any trap into an
#                              `Internal` error and retires only the object that trapped (src/wasm/js/facade.js);
#                              our code never panics on purpose (every error is a `Result`).
#   -Z location-detail=none    no file/line strings for `#[track_caller]` panics (they trap anyway).
#   optimize_for_size          std's own size-over-speed variants (`-Z build-std-features`): smaller sorts, integer
#                              formatting and float parsing, same results, no measurable slowdown.
#   -Z share-generics=yes      a generic instantiated upstream (std, minijinja, serde_json…) is reused by the crates
#                              below instead of each compiling its own copy (release builds share none by default;
#                              the copies, compiled at different opt-levels, were not identical, so neither LTO nor
#                              wasm-opt merged them): −1.7 KB gzip (BENCHMARKS.md "Package size", session 12).
# std's crates keep opt-level 2 (our crate and dependencies: "z"): compiled at "z" they made whole-text parsing ≈ 20 %
# slower (string search, UTF-8, allocation) for 7.5 KB gzip (BENCHMARKS.md "Package size").
# Not `-Z fmt-debug=none` (−5 KB gzip): it empties every `{:?}`, and our diagnostics and minijinja's errors
# quote names and markers with `{:?}` (pkg-tests/native-parity.test.mjs fails with it).
# These are unstable flags, so the build pins TOOLCHAIN and uses RUSTC_BOOTSTRAP; RUSTFLAGS replaces
# .cargo/config.toml's wasm rustflags, so they are repeated here. Its own target dir: the native build and
# tests keep their cache.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"   # npm binaryen's wasm-opt, pinned CLIs

# The toolchain scripts/setup.sh pins (1.95.0) if it is there, else the machine's default one; if that has no
# rust-src (or the build-std build fails on it), the package is built against the prebuilt std instead
# (panic=abort from the release profile; ≈ 53 KB gzip larger, same behaviour) with a warning, so a machine
# without the std sources still builds and tests (WASM_PREBUILT_STD=1 forces that build).
TOOLCHAIN=1.95.0
rustup run "$TOOLCHAIN" rustc --version >/dev/null 2>&1 || TOOLCHAIN="$(rustup show active-toolchain 2>/dev/null | awk '{print $1}')"
out=target/wasm-std
glue=target/wasm-glue
# build_wasm CARGO_FEATURE_ARGS OUT_NAME: one wasm into $glue (bindgen glue + wasm-opt'd module named OUT_NAME).
# The full package is the default features; the parse-only one (`chat-autoparser/parser`, issue #28) is the
# same crate without them. Both go through the same target dir, one after the other (the crate is rebuilt,
# std and the dependencies are not).
build_wasm() {
  local features="$1" name="$2"
  local wasm_file="$out/wasm32-unknown-unknown/release/chat_autoparser.wasm"
  # shellcheck disable=SC2086
  if [ "${WASM_PREBUILT_STD:-}" != 1 ] && [ -d "$(rustup run "$TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library/std" ] && \
     RUSTC_BOOTSTRAP=1 \
     RUSTFLAGS="-C link-arg=--export=__stack_pointer -Z unstable-options -C panic=immediate-abort -Z location-detail=none -Z share-generics=yes" \
     cargo "+$TOOLCHAIN" build --quiet --lib --release --target wasm32-unknown-unknown $features \
      -Z build-std=std,panic_abort -Z build-std-features=optimize_for_size --target-dir "$out" \
      --config 'profile.release.package.core.opt-level=2' --config 'profile.release.package.alloc.opt-level=2' \
      --config 'profile.release.package.std.opt-level=2'; then
    :
  else
    echo "warning: std could not be built from source with toolchain $TOOLCHAIN (rust-src missing?): building against the prebuilt std (larger wasm)" >&2
    # shellcheck disable=SC2086
    cargo build --quiet --lib --release --target wasm32-unknown-unknown $features
    wasm_file=target/wasm32-unknown-unknown/release/chat_autoparser.wasm
  fi
  wasm-bindgen --target web --out-dir "$glue" --out-name "$name" "$wasm_file"
  # The linked module as cargo wrote it (names kept): scripts/size-report.mjs reads it (both builds share $out).
  cp "$wasm_file" "target/${name}.linked.wasm"
  # -Oz twice: the second pass finds what the first one's inlining and merging left (−1.0 KB gzip on the full
  # module; a third pass, `--converge`, `-O4 -Oz` or `--merge-similar-functions` gained nothing more).
  # A function with one caller is inlined into it only when tiny (≤ 15 bytes; wasm-opt inlines every such function
  # by default): inlined, a generic's instantiation is renumbered into its caller's locals and no longer looks like
  # its siblings, which the ordering below puts next to it. −40 KB gzip on the full module (BENCHMARKS.md "Session 16").
  local inline=--one-caller-inline-max-function-size=15
  wasm-opt "$glue/${name}_bg.wasm" -o "$glue/${name}_bg.wasm" -Oz -Oz "$inline"
  # Functions reordered so that alike bodies sit together for gzip (scripts/order-functions.mjs: −27 KB gzip on
  # the full module, same code), then optimised once more to write the result (its stack IR).
  node scripts/order-functions.mjs "$glue/${name}_bg.wasm" "$glue/${name}_named.wasm"
  wasm-opt "$glue/${name}_named.wasm" -o "$glue/${name}_bg.wasm" --reorder-functions-by-name -Oz "$inline"
  rm "$glue/${name}_named.wasm"
}
rm -rf "$glue"
build_wasm "" chat_autoparser
build_wasm "--no-default-features --features parser" chat_autoparser_parser
rm -rf pkg/node pkg/web pkg/parser
node scripts/bundle-js.mjs "$glue"
# One hand-written declaration file for every entry (.d.mts: the Node ESM entry's own, for NodeNext).
for d in pkg/node/chat_autoparser.d.ts pkg/node/index.d.mts pkg/web/chat_autoparser.d.ts; do cp src/wasm/chat_autoparser.d.ts "$d"; done
for d in pkg/parser/web/chat_autoparser_parser.d.ts pkg/parser/node/chat_autoparser_parser.d.ts pkg/parser/node/index.d.mts; do cp src/wasm/chat_autoparser_parser.d.ts "$d"; done
rm -rf www/pkg && mkdir -p www/pkg && cp pkg/web/chat_autoparser.js pkg/web/chat_autoparser_bg.wasm www/pkg/
node scripts/playground-templates.mjs   # www/templates/: the picker's list
printf 'built: pkg/node, pkg/web, www/pkg (%s bytes wasm, %s gzip -9)\n' "$(wc -c < pkg/web/chat_autoparser_bg.wasm)" "$(gzip -9 -c pkg/web/chat_autoparser_bg.wasm | wc -c)"
printf 'built: pkg/parser (%s bytes wasm, %s gzip -9)\n' "$(wc -c < pkg/parser/web/chat_autoparser_parser_bg.wasm)" "$(gzip -9 -c pkg/parser/web/chat_autoparser_parser_bg.wasm | wc -c)"
