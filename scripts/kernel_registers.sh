#!/usr/bin/env bash
# Registers a thread, workgroup memory and local memory of every kernel as a Vulkan driver compiles
# it (NVIDIA reports them through VK_KHR_pipeline_executable_properties): how many workgroups of a
# kernel fit on a multiprocessor, which no timing shows directly.
#
#   scripts/kernel_registers.sh build DIR
#       here: builds the two tools into DIR (needs libvulkan-dev and the build's copy of Dawn);
#       carry DIR, build/wgpt and the spirv-tools package to the GPU machine.
#   scripts/kernel_registers.sh run DIR WGPT [VARIANTS]
#       on the GPU machine: every kernel of WGPT (`wgpt info --dump-kernels`), and each
#       VARIANTS/*.wgsl as "variant+NAME", compiled by Dawn's Vulkan backend (dump_spirv),
#       assembled (spirv-as) and compiled again by the driver with statistics (pipeline_statistics).
#       WGPT_KERNEL_CHECKS=0 compiles them without WebGPU's checks, as wgpt runs then.
#       ONLY=REGEX keeps the kernels whose file names match (grep -E), to save a device's time.
#       CODE=FOLDER also writes there what the driver shows of each kernel's machine code (its
#       internal representations, and the ELF images in its pipeline cache: on NVIDIA, cubins if
#       the cache holds them in the clear), then disassembles each image to NAME.N.sass where an
#       nvdisasm is found (on PATH, or in the Triton package beside python3's PyTorch).
set -euo pipefail
# The folders and binaries named on the command line are taken from where it runs; the sources
# from the checkout this script lies in.
repo=$(cd "$(dirname "$0")/.." && pwd)
tools=$repo/scripts/kernel_registers

case "${1:-}" in
  build)
    out=${2:?build needs an output folder}
    mkdir -p "$out"
    seam=$repo/.deps/webgpu-seam
    g++ -std=c++20 -O2 -Wall -Wextra -Werror -I"$seam/include" -I"$repo/src" "$tools/dump_spirv.cpp" \
      -o "$out/dump_spirv" -L"$seam/lib" -l:libdawn_copy.so
    # Vulkan's structures are written {sType} with the rest zeroed, which -Wextra would flag.
    g++ -std=c++20 -O2 -Wall -Wextra -Werror -Wno-missing-field-initializers \
      "$tools/pipeline_statistics.cpp" \
      -o "$out/pipeline_statistics" -lvulkan
    echo "built $out/dump_spirv and $out/pipeline_statistics"
    ;;
  run)
    bin=${2:?run needs the folder of the tools}
    wgpt=${3:?run needs a wgpt binary}
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/wgsl" "$work/spirv"
    "$wgpt" info --dump-kernels "$work/wgsl" >/dev/null
    if [ -n "${4:-}" ]; then
      for f in "$4"/*.wgsl; do cp "$f" "$work/wgsl/variant+$(basename "$f")"; done
    fi
    if [ -n "${ONLY:-}" ]; then
      for f in "$work"/wgsl/*.wgsl; do
        basename "$f" | grep -Eq -- "$ONLY" || rm "$f"
      done
    fi
    for f in "$work"/wgsl/*.wgsl; do
      "$bin/dump_spirv" "$work/spirv" "$f" 2>/dev/null || echo "$(basename "$f"): no SPIR-V" >&2
    done
    compgen -G "$work/spirv/*.spvasm" >/dev/null ||
      { echo "Dawn's Vulkan backend compiled no kernel here" >&2; exit 1; }
    for f in "$work"/spirv/*.spvasm; do
      version=$(grep -m1 -o 'Version: 1\.[0-9]' "$f" | tail -c 2)
      spirv-as --target-env "spv1.${version:-3}" "$f" -o "${f%.spvasm}.spv"
    done
    if [ -z "${CODE:-}" ]; then
      "$bin/pipeline_statistics" "$work"/spirv/*.spvasm
      exit
    fi
    mkdir -p "$CODE"
    "$bin/pipeline_statistics" --code "$CODE" "$work"/spirv/*.spvasm
    disassembler=$(command -v nvdisasm ||
      python3 -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__),
        "backends", "nvidia", "bin", "nvdisasm"))' 2>/dev/null || true)
    if [ ! -x "$disassembler" ]; then
      echo "no nvdisasm here: the ELF images in $CODE stay undisassembled" >&2
      exit
    fi
    for f in "$CODE"/*.elf; do
      [ -e "$f" ] || continue
      "$disassembler" -c "$f" >"${f%.elf}.sass" 2>&1 || echo "$(basename "$f"): nvdisasm failed" >&2
    done
    ;;
  *)
    sed -n '2,18{s/^# \{0,1\}//;p}' "$0"
    exit 2
    ;;
esac
