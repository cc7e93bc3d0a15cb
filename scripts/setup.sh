#!/usr/bin/env bash
# Install everything the build and the tests need, idempotently, from the registries only
# (crates.io, npm, Debian). Safe to run on every `npm start` / `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal the `wasm-bindgen = "=…"` pin in Cargo.toml
WASM_TOOLCHAIN=1.95.0          # must equal TOOLCHAIN in scripts/build.sh (it builds std from this rust-src)
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\n== %s\n' "$*"; }

# The wasm build compiles std itself (`-Z build-std`, see scripts/build.sh): the pinned toolchain, its wasm32
# target and its std sources. `rustup toolchain install` is a no-op for what is already there.
if ! rustup target list --toolchain "$WASM_TOOLCHAIN" --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$' \
   || ! rustup component list --toolchain "$WASM_TOOLCHAIN" --installed 2>/dev/null | grep -q '^rust-src'; then
  step "rustup toolchain install $WASM_TOOLCHAIN (wasm32-unknown-unknown, rust-src)"
  # Where the toolchain server is out of reach, scripts/build.sh falls back to the default toolchain and, without
  # its rust-src, to the prebuilt std; the default toolchain still needs the wasm32 target.
  rustup toolchain install "$WASM_TOOLCHAIN" --profile minimal --target wasm32-unknown-unknown --component rust-src \
    || { echo "warning: could not install toolchain $WASM_TOOLCHAIN; the wasm build falls back (scripts/build.sh)" >&2
         rustup target list --installed | grep -q '^wasm32-unknown-unknown$' || rustup target add wasm32-unknown-unknown; }
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  step "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # Not --locked: its lockfile pins a webpki-roots version this registry does not serve.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features --force
fi

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/typescript ] || [ package.json -nt node_modules/.setup-stamp ]; then
  step "npm install"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
  touch node_modules/.setup-stamp
fi

if [ "${SKIP_CHROMIUM:-}" != "1" ] && [ ! -x /usr/bin/chromium ]; then
  step "apt-get install chromium"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
