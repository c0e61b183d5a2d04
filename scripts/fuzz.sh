#!/usr/bin/env bash
# `make fuzz`: the long fuzzing campaigns. Builds the fuzzers (clang, libFuzzer + ASan + UBSan, as
# CI does, but optimised: RelWithDebInfo in build-fuzz/), then runs each in turn at the lowest priority until it has made FUZZ_RUNS executions
# or spent FUZZ_SECONDS, whichever comes first (defaults: 10 million, one hour); FUZZERS picks
# some (default: all). Each run starts from the committed corpus (tests/fuzz/corpus/NAME), and
# what it finds that adds coverage is merged back into it, minimised, ready to commit. A crash is
# kept as build-fuzz/fuzz-logs/NAME/crash-* and fails the script. The closing table (fuzzer,
# executions, seconds, result) is what docs/reliability.md records.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
runs=${FUZZ_RUNS:-10000000}
seconds=${FUZZ_SECONDS:-3600}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWGPT_SANITIZE=ON -DWGPT_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzzers
fuzzers=${FUZZERS:-$(cd tests/fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')}
summary=()
failed=0
root=$PWD
for name in $fuzzers; do
  work=$root/build-fuzz/fuzz-logs/$name
  corpus=$root/tests/fuzz/corpus/$name
  rm -rf "$work" && mkdir -p "$work/new"
  options=(-runs="$runs" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$work/")
  [ -f "tests/fuzz/$name.dict" ] && options+=(-dict="$root/tests/fuzz/$name.dict")
  echo "== $name: up to $runs executions or ${seconds}s (log: $work/fuzz.log)"
  start=$(date +%s)
  status=0
  # From the build folder, as ctest runs them: fuzz_bpe finds GPT-2's files at ../.deps.
  (cd build-fuzz && nice -n 19 "./$name" "${options[@]}" "$work/new" "$corpus") \
    >"$work/fuzz.log" 2>&1 || status=$?
  elapsed=$(($(date +%s) - start))
  executed=$(grep -o 'number_of_executed_units: *[0-9]*' "$work/fuzz.log" | grep -o '[0-9]*$' ||
             echo "?")
  if [ "$status" -eq 0 ]; then
    result="no finding"
    (cd build-fuzz && nice -n 19 "./$name" -merge=1 "$corpus" "$work/new") >"$work/merge.log" 2>&1
  else
    result="FINDING (exit $status): see $work"
    failed=1
  fi
  summary+=("| $name | $executed | $elapsed | $result |")
  echo "   $executed executions in ${elapsed}s: $result"
done
printf '\n| fuzzer | executions | seconds | result |\n|---|---:|---:|---|\n'
printf '%s\n' "${summary[@]}"
exit $failed
