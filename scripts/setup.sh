#!/usr/bin/env bash
# Installs what is missing; a no-op in a second or two when everything is
# there.
#   bash scripts/setup.sh build   what the build and the CLI need (npm start):
#                                 the wasm target, rust-src,
#                                 wasm-bindgen-cli, npm ci
#   bash scripts/setup.sh         that, and what only the tests need (npm
#                                 test): AI SDK 4 in tests/ai-v4, cargo-fuzz
#                                 and Debian's chromium
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*"; }
only_build=false
[ "${1:-}" = build ] && only_build=true

# The wasm target of the Rust toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# Rust's own sources, from which the build compiles the module's std
# (scripts/build.mjs says why).
if ! rustup component list --installed | grep -qx rust-src; then
  say "adding the rust-src component"
  rustup component add rust-src
fi

# wasm-bindgen-cli at exactly the version of the wasm-bindgen crate the build
# uses: the one Cargo.lock records (Cargo.toml pins it with "=X.Y.Z", however
# that line is spelled). Not --locked: its lockfile wants a crate version the
# registry here lacks.
want=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$want" ] || { say "no wasm-bindgen package found in Cargo.lock" >&2; exit 1; }
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (found '${have:-none}'; takes about 4 minutes)"
  cargo install wasm-bindgen-cli --version "$want" --force
fi

# npm dev dependencies from the committed lockfile. npm ci runs no script of
# this package.json, so it does not come back here.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund
fi

$only_build && exit 0

# AI SDK 4 for the ai-sdk-4 format's tests, in a project of its own (it
# needs zod 3; the root has zod 4).
if [ ! -f tests/ai-v4/node_modules/.package-lock.json ] || [ tests/ai-v4/package-lock.json -nt tests/ai-v4/node_modules/.package-lock.json ]; then
  say "npm ci in tests/ai-v4"
  npm ci --prefix tests/ai-v4 --no-audit --no-fund
fi

# cargo-fuzz for the fuzz smoke run (scripts/fuzz.sh); --locked works here
# (about 2.5 minutes on 2 cores).
if ! cargo fuzz --version 2>/dev/null | grep -qx "cargo-fuzz 0.13.2"; then
  say "installing cargo-fuzz 0.13.2 (takes about 2.5 minutes)"
  cargo install cargo-fuzz --version 0.13.2 --locked --force
fi

# Debian's Chromium for the browser tests (never a downloaded browser build).
if ! command -v chromium >/dev/null; then
  say "installing Debian's chromium (about 75 s)"
  export DEBIAN_FRONTEND=noninteractive
  sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_ apt-get update -q
  sudo_ apt-get install -y -q chromium
fi
