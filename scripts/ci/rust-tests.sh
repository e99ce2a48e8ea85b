#!/usr/bin/env bash
# The Rust tests, native: the core's rules on serde_json values, before the
# wasm build and the slow suites, so a broken rule fails in a minute or two.
# `npm test` runs it; it runs alone too.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

echo "== cargo test"
cargo test --quiet
