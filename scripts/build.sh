#!/usr/bin/env bash
# Build the wasm package: one wasm (pkg/web/chat_autoparser_bg.wasm) behind three entries made from
# wasm-bindgen's glue and the hand-written facade (scripts/bundle-js.mjs): pkg/web (ESM for browsers and
# bundlers), pkg/node (CommonJS, plus an ESM re-export), and a copy of the web entry in www/pkg for the playground.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"   # npm binaryen's wasm-opt, pinned CLIs

glue=target/wasm-glue
wasm-pack --quiet build --release --target web --out-dir "$glue" --out-name chat_autoparser
rm -rf pkg/node pkg/web
node scripts/bundle-js.mjs "$glue"
# One hand-written declaration file for every entry (.d.mts: the Node ESM entry's own, for NodeNext).
for d in pkg/node/chat_autoparser.d.ts pkg/node/index.d.mts pkg/web/chat_autoparser.d.ts; do cp src/wasm/chat_autoparser.d.ts "$d"; done
rm -rf www/pkg && mkdir -p www/pkg && cp pkg/web/chat_autoparser.js pkg/web/chat_autoparser_bg.wasm www/pkg/
node scripts/playground-templates.mjs   # www/templates/: the picker's list
printf 'built: pkg/node, pkg/web, www/pkg (%s bytes wasm)\n' "$(wc -c < pkg/web/chat_autoparser_bg.wasm)"
