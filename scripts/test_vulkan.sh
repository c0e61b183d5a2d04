#!/usr/bin/env bash
# `make test-vulkan`: the GPU tests once more, through Dawn's Vulkan backend on Mesa's lavapipe (a
# software Vulkan driver): the path of a hardware GPU on Linux (WGSL compiled to SPIR-V), where
# `make test` runs them through Dawn's OpenGL ES backend on llvmpipe (WGSL compiled to GLSL). For
# kernel work without a GPU at hand; not part of `make test` (about 12 minutes on two cores).
# Arguments go to the test binary: `bash scripts/test_vulkan.sh --gtest_filter='GpuMatmul*'`.
# Debian 12's own lavapipe (Mesa 22) lacks a feature Dawn requires, so Mesa 25's, from
# bookworm-backports, is fetched by pinned version and digest into the ignored .deps/lavapipe
# through a private apt list (the system's sources stay as they are) and named to the Vulkan
# loader by VK_DRIVER_FILES; the loader (libvulkan1) comes from Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ -x build/wgpt_gpu_tests ] || { echo "test-vulkan: run make test first (it builds build/)" >&2; exit 1; }

sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
if ! dpkg-query -W -f='${Status}' libvulkan1 2>/dev/null | grep -q 'ok installed'; then
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends libvulkan1 >/dev/null
fi

# package=version  sha256
debs=(
  "mesa-vulkan-drivers=25.0.7-2~bpo12+1 3899f1800424c60a05df5d6913076a526ca8fdbabec43672cd397563d1ca3263"
  "libdrm2=2.4.123-1~bpo12+1 9cc2f341964286295124a32d3625edb76730500625e54a1e682761f883064d7b"
  "libdrm-amdgpu1=2.4.123-1~bpo12+1 334e2ae389af0e9cb607c2ccfbbf7ae9feb34131ff998550baeffeeae6cda296"
)
dir=$PWD/.deps/lavapipe
digests=$(printf '%s\n' "${debs[@]}")
if [ "$(cat "$dir/.digests" 2>/dev/null)" != "$digests" ]; then
  echo "test-vulkan: fetching Mesa's lavapipe from bookworm-backports"
  rm -rf "$dir" && mkdir -p "$dir/apt/lists/partial" "$dir/debs" "$dir/root"
  echo "deb http://deb.debian.org/debian bookworm-backports main" >"$dir/apt/sources.list"
  apt_private=(-o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=-
               -o Dir::State::Lists="$dir/apt/lists" -o APT::Sandbox::User=root)
  apt-get "${apt_private[@]}" update -qq
  for entry in "${debs[@]}"; do
    spec=${entry% *}; digest=${entry#* }
    (cd "$dir/debs" && apt-get "${apt_private[@]}" download -qq "$spec") ||
      { echo "test-vulkan: $spec is no longer in bookworm-backports: update the pins" >&2; exit 1; }
    deb=$(ls "$dir/debs/${spec%%=*}"_*.deb)
    echo "$digest  $deb" | sha256sum --check --quiet || { echo "test-vulkan: digest mismatch for $spec" >&2; exit 1; }
    dpkg-deb -x "$deb" "$dir/root"
  done
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.4.305"}}\n' \
    "$dir/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so" >"$dir/lvp_icd.json"
  echo "$digests" >"$dir/.digests"
fi

export VK_DRIVER_FILES=$dir/lvp_icd.json WGPT_BACKEND=vulkan
export LD_LIBRARY_PATH=$dir/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}  # lavapipe's window-system code asks for it
./build/wgpt info
./build/wgpt info | grep -q '^backend: *Vulkan' || { echo "test-vulkan: no Vulkan adapter" >&2; exit 1; }
./build/wgpt_gpu_tests --gtest_brief=1 "$@"
