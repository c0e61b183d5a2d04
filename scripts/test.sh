#!/usr/bin/env bash
# Builds wgpt and runs every test: CPU and GPU tests (on whatever WebGPU adapter this machine has:
# llvmpipe through Dawn's OpenGL ES backend on a CPU-only machine), command-line tests, the CPU
# tests again under AddressSanitizer + UBSan beside the format readers' fuzzers, and the browser
# build (`make web`: the library compiled with Emscripten 3.1.6 — clang 14, libc++ — and the page)
# tested in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
step() { printf '\n== %s\n' "$*"; }
run_ctest() { ctest --test-dir "$1" --output-on-failure -j"$jobs" "${@:2}" | tee -a "$log"; }

step "build (Release)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"

step "the adapter the GPU tests run on"
./build/wgpt info

step "CPU, GPU and command-line tests"
run_ctest build

# One clang build serves both: the library instrumented for ASan + UBSan and for libFuzzer's
# coverage, the CPU tests linked with the sanitizers, the fuzzers with libFuzzer.
step "CPU and option tests under AddressSanitizer + UBSan, and every reader and the command line fuzzed (libFuzzer, 10 s each)"
CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DWGPT_SANITIZE=ON -DWGPT_FUZZ=ON >/dev/null
cmake --build build-sanitize -j"$jobs" --target wgpt_cpu_tests wgpt_cli_tests fuzzers
run_ctest build-sanitize

step "the browser build (make web: Emscripten 3.1.6, clang 14, libc++) in headless Chromium"
bash scripts/build_web.sh
run_ctest build-wasm-app

# One closing line over every ctest run above (each stage already stopped the script on failure).
awk '/tests passed, .* tests failed out of/ { failed += $4; total += $NF }
     END { printf "\nall stages: %d passed, %d failed\n", total - failed, failed }' "$log"
