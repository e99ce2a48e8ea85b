#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ (cargo fuzz, libFuzzer) for a bounded time
# on one core, and fails on the first crash or broken invariant.
#   bash scripts/fuzz.sh              the smoke run of `npm test`: 60 s in all
#   bash scripts/fuzz.sh 3600         an hour in all
#   FUZZ_RUNS=10000000 bash scripts/fuzz.sh 0 history    a fixed number of runs
# The corpus grows in fuzz/corpus/TARGET (gitignored); a crash is written to
# fuzz/artifacts/TARGET and shown with
#   cargo run --manifest-path fuzz/Cargo.toml --example show -- FILE
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
export PATH="$HOME/.cargo/bin:$PATH"
# cargo fuzz passes -Z flags to rustc; the machine has stable Rust only, which
# accepts them with RUSTC_BOOTSTRAP. No sanitizer: the core the fuzzer runs
# has no unsafe code (the only unsafe blocks are in src/bindings/strings.rs,
# which is wasm-only and not fuzzed), and without AddressSanitizer the same
# core does about three times the executions (debug assertions stay on, so
# overflows still fail).
export RUSTC_BOOTSTRAP=1
flags=(--sanitizer none --release)

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
per=$((seconds / ${#targets[@]}))

started=$SECONDS
mkdir -p target
cargo fuzz build "${flags[@]}" >target/fuzz-build.log 2>&1 || { tail -n 40 target/fuzz-build.log; exit 1; }
echo "fuzz: built ${targets[*]} in $((SECONDS - started))s"

for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  limits=(-max_total_time="$per")
  [ -z "${FUZZ_RUNS:-}" ] || limits=(-runs="$FUZZ_RUNS")
  dict=()
  [ ! -f "$target.dict" ] || dict=(-dict="$target.dict")
  log="target/fuzz-$target-$$.log"
  t=$SECONDS
  if ! cargo fuzz run "${flags[@]}" "$target" "corpus/$target" -- \
    "${limits[@]}" "${dict[@]}" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: $target failed (log: fuzz/$log)"
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  corpus=$(find "corpus/$target" -type f | wc -l)
  echo "fuzz: $target: $runs executions in $((SECONDS - t))s ($speed/s), corpus $corpus inputs, no failure"
done
