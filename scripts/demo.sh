#!/usr/bin/env bash
# The main job: build wgpt and generate text from the shipped default model on this machine's GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target wgpt >/dev/null
model=assets/brown-char
held_out=$(grep -o '"held_out_loss": [0-9.]*' "$model/metrics.json" | grep -o '[0-9.]*$')
echo "== the WebGPU adapter"
./build/wgpt info
echo
echo "== generating from $model: a 6-layer character-level GPT-2 that wgpt trained on the Brown"
echo "   corpus (q4; held-out loss $(printf '%.3f' "$held_out") nats per character; see $model/README.md)"
./build/wgpt generate -m "$model" -p "The jury said" -n 200 --temp 0.8 --top-k 40 --seed 1
