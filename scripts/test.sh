#!/usr/bin/env bash
# Builds wgpt and runs every test: CPU and GPU tests (on whatever WebGPU adapter this machine has:
# llvmpipe through Dawn's OpenGL ES backend on a CPU-only machine), command-line tests, the layer
# checks, the installed tree on its own, llama.cpp (wasm) on wgpt's GGUF files, the CPU
# tests again under AddressSanitizer + UBSan beside the format readers' fuzzers, and the browser
# build (`make web`: the library compiled with Emscripten 3.1.6 — clang 14, libc++ — and the page)
# tested in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Each stage's heading says how long the run has taken so far: CI's time limit is the whole run's.
step() { printf '\n== %s (%d min %02d s in)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
run_ctest() { ctest --test-dir "$1" --output-on-failure -j"$jobs" "${@:2}" | tee -a "$log"; }

# The WebGPU seam (-DWGPT_WEBGPU_*): the Release build — so every CPU, GPU, command-line and install
# test below — uses a copy of Dawn under another name in another folder, not the pinned package in
# place, so that nothing can come to depend on where that package is or what its files are called.
seam=.deps/webgpu-seam
mkdir -p "$seam/include/webgpu" "$seam/lib"
copy_if_changed() { cmp -s "$1" "$2" || cp "$1" "$2"; }
copy_if_changed .deps/npm/react-native-webgpu/cpp/webgpu/webgpu.h "$seam/include/webgpu/webgpu.h"
copy_if_changed .deps/npm/bun-webgpu-linux-x64/libwebgpu_wrapper.so "$seam/lib/libdawn_copy.so"

step "build (Release, against $seam)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWGPT_WEBGPU_INCLUDE_DIR="$PWD/$seam/include" \
  -DWGPT_WEBGPU_LIBRARY="$PWD/$seam/lib/libdawn_copy.so" >/dev/null
cmake --build build -j"$jobs"

step "the WebGPU library the build uses, and the adapter the GPU tests run on"
./build/wgpt --version
readelf -d build/wgpt | grep -q 'NEEDED.*\[libdawn_copy.so\]' ||
  { echo "build/wgpt does not link the copy of Dawn it was configured with" >&2; exit 1; }
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
printf 'in %d min %02d s\n' $((SECONDS / 60)) $((SECONDS % 60))
