#!/usr/bin/env bash
# Every suite against the built package (run `node scripts/build.mjs` first;
# `npm test` does set-up, the Rust tests (scripts/ci/rust-tests.sh), the
# build and this). Runs them all, then fails if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
failed=()

suite() {
  local name=$1; shift
  echo "== $name: $*"
  "$@" || failed+=("$name")
}

suite "sample session is what its script makes" node scripts/make-sample-session.mjs --check
suite "node --test" node --test --test-reporter=spec tests/js/
# Sloppy imports: in this repo the package is a symlink to pkg/, which Deno
# then reads as local files, where its types' "./x.js" imports need it; an
# installed package needs no flag (tests/js/packaging.test.mjs proves that).
suite "deno test" env DENO_DIR="$PWD/target/deno" DENO_NO_UPDATE_CHECK=1 NO_COLOR=1 \
  deno test --allow-read --allow-env --allow-net=127.0.0.1 --unstable-sloppy-imports tests/deno/
suite "tsc types" tsc -p tests/types/tsconfig.json
suite "tsc SDK types" tsc -p tests/types/sdk/tsconfig.json
suite "tsc AI SDK 4 types" tsc -p tests/ai-v4/tsconfig.json
# A minute of libFuzzer over every fuzz target (fuzz/, its own workspace).
suite "fuzz smoke" bash scripts/fuzz.sh 60

if [ ${#failed[@]} -gt 0 ]; then
  echo "test: failed: ${failed[*]}"
  exit 1
fi
echo "test: every suite passed"
