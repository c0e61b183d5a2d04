#!/usr/bin/env bash
# `make web`: the page as a static folder, build-wasm-app/site/ — the library compiled to
# WebAssembly with Emscripten, the JavaScript API, the page and the model — plus the gate's
# reference (the native tool's greedy ids, so the native tool is built first).
# MODEL=dir picks the model (default: assets/brown-char, the model wgpt trained).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
MODEL=${MODEL:-assets/brown-char}
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs" --target wgpt
# Debian's Emscripten runs its tools with Debian's Node.js modules.
export NODE_PATH=/usr/share/nodejs
emcmake cmake -S . -B build-wasm-app -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DWGPT_NATIVE_TOOL="$PWD/build/wgpt" -DWGPT_WEB_MODEL="$(realpath "$MODEL")" >/dev/null
cmake --build build-wasm-app -j"$jobs"
echo "web: build-wasm-app/site/ holds the page and $MODEL; serve it with any static file server," \
     "e.g. python3 -m http.server -d build-wasm-app/site"
