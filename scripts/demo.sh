#!/usr/bin/env bash
# The main job: build wgpt and show it working on this machine's GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target wgpt >/dev/null
./build/wgpt info
