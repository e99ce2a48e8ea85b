#!/usr/bin/env bash
# The fast checks, seconds on a warm build: formatting, then clippy with
# warnings as errors on the host (all targets), on the wasm target the
# bindings need, and on the fuzz targets' workspace. Run alone, or by .ci/run
# before the slow suites.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

echo "== cargo fmt --check"
cargo fmt --check
cargo fmt --check --manifest-path fuzz/Cargo.toml
echo "== cargo clippy (host, all targets)"
cargo clippy --all-targets --quiet -- -D warnings
echo "== cargo clippy (wasm32: the bindings)"
cargo clippy --lib --target wasm32-unknown-unknown --quiet -- -D warnings
echo "== cargo clippy (the fuzz targets' workspace)"
cargo clippy --manifest-path fuzz/Cargo.toml --all-targets --quiet -- -D warnings
