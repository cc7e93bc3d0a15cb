#!/usr/bin/env bash
# Build the wasm package: pkg/node (CommonJS for Node), pkg/web (ESM for browsers and bundlers),
# and a copy of the web build in www/pkg for the playground.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"   # npm binaryen's wasm-opt, pinned CLIs

wasm-pack --quiet build --release --target nodejs --out-dir pkg/node --out-name chat_autoparser
wasm-pack --quiet build --release --target web --out-dir pkg/web --out-name chat_autoparser
# wasm-pack's generated manifests and ignore files are not ours: the root package.json is the manifest.
rm -f pkg/node/.gitignore pkg/web/.gitignore pkg/node/README.md pkg/web/README.md
cp src/wasm/index.mjs pkg/node/index.mjs
cp src/wasm/chat_autoparser.d.ts pkg/node/chat_autoparser.d.ts
cat src/wasm/chat_autoparser.d.ts src/wasm/web-init.d.ts > pkg/web/chat_autoparser.d.ts   # + default init()
rm -rf www/pkg && mkdir -p www/pkg && cp -r pkg/web/chat_autoparser.js pkg/web/chat_autoparser_bg.wasm pkg/web/snippets www/pkg/
node scripts/playground-templates.mjs   # www/templates/: the picker's list
printf 'built: pkg/node, pkg/web, www/pkg (%s bytes wasm)\n' "$(wc -c < pkg/web/chat_autoparser_bg.wasm)"
