#!/usr/bin/env bash
# The main job: build wgpt and generate text from the shipped default model on this machine's GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target wgpt >/dev/null
model=assets/untrained-char
echo "== the WebGPU adapter"
./build/wgpt info
echo
echo "== generating from $model — UNTRAINED (random weights): expect random characters, not English"
./build/wgpt generate -m "$model" -p "ROMEO:" -n 48 --temp 0.8 --seed 1
