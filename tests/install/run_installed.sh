#!/usr/bin/env bash
# Run by install_test.sh inside a private mount namespace: hides the checkout and the build tree,
# then uses the installed tree as a user would, from a folder of its own, with a HOME of its own.
# Arguments: PREFIX SOURCE_DIR BUILD_DIR HELLO_CMAKE HELLO_PKG_CONFIG.
set -uo pipefail
prefix=$1 root=$2 build=$3 hello_cmake=$4 hello_pkg_config=$5
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The build tree first: it is often inside the checkout, which then hides it a second time.
mount -t tmpfs none "$build" && mount -t tmpfs none "$root" ||
  { echo "FAIL: cannot mount over the checkout or the build tree"; exit 1; }
for hidden in "$root" "$build"; do
  [ ! -e "$hidden" ] || [ -z "$(ls -A "$hidden")" ] || { echo "FAIL: $hidden is still visible"; exit 1; }
done

work=$(mktemp -d)
cd "$work" || exit 1
export HOME=$work/home
unset LD_LIBRARY_PATH WGPT_DATA_DIR HF_HOME HF_HUB_CACHE
wgpt=$prefix/bin/wgpt

# check "what" command...: runs it, keeping its output for the report when it fails.
check() {
  local what=$1
  shift
  "$@" >"$work/out" 2>&1 || { cat "$work/out"; fail "$what"; }
}

check "wgpt --version" "$wgpt" --version
grep -q "^wgpt [0-9]*\.[0-9]*\.[0-9]*$" "$work/out" || fail "--version lacks the version: $(cat "$work/out")"
grep -q "^commit: ." "$work/out" || fail "--version lacks the commit"
grep -q "^webgpu: ." "$work/out" || fail "--version lacks the WebGPU library"

# `wgpt serve` runs on the cpp-httplib installed beside it (found through RUNPATH before the system's).
check "serve --help" "$wgpt" serve --help
grep -q -- "--port" "$work/out" || fail "serve --help does not explain --port: $(cat "$work/out")"
loaded=$(ldd "$wgpt")  # whole, before grep: grep -q would end the pipe early (pipefail)
grep -q "libcpp-httplib[^ ]* => $prefix/bin/\.\./lib/" <<<"$loaded" ||
  fail "wgpt does not take cpp-httplib from the install: $(grep httplib <<<"$loaded")"

check "init" "$wgpt" init --config 2,2,32,64,50257 -o fresh --seed 1
[ -s fresh/vocab.json ] && [ -s fresh/merges.txt ] || fail "init wrote no tokenizer"
check "generate on the initialised model" "$wgpt" generate -m fresh -p "Hello" -n 4 --greedy

check "data brown" "$wgpt" data brown -o brown.txt
[ "$(wc -c <brown.txt)" -gt 1000000 ] || fail "data brown wrote too little text"
head -c 100000 brown.txt >small.txt
check "train --tokenizer gpt2" "$wgpt" train --data small.txt --tokenizer gpt2 --layers 1 \
  --heads 2 --embd 32 --ctx 32 --steps 3 --batch 2 --warmup 1 --eval-every 0 --eval-windows 2 \
  --checkpoint-every 0 --out trained
[ -s trained/merges.txt ] || fail "the trained model has no tokenizer"
check "generate on the trained model" "$wgpt" generate -m trained -p "The" -n 4 --greedy

# The shipped model by name, and the example consumer (16 greedy tokens on the CPU) on it: the
# same text three times.
tool_text=$("$wgpt" generate -m brown-char -p "The " -n 16 --greedy 2>"$work/err") ||
  { cat "$work/err"; fail "generate with the shipped model by name"; }
version=$("$wgpt" --version | head -1)
for hello in "$hello_cmake" "$hello_pkg_config"; do
  check "$hello" "$hello" "$prefix/share/wgpt/models/brown-char" "The "
  [ "$(cat "$work/out")" = "${version}: $tool_text" ] ||
    fail "$hello printed '$(cat "$work/out")', the tool '$tool_text'"
done

echo "ran from the installed tree alone: --version, serve --help, init, generate, data brown ($(wc -c <brown.txt)" \
  "bytes), train --tokenizer gpt2 (wrote: $(ls trained | tr '\n' ' ')), the shipped model by name," \
  "examples/hello built both ways"
rm -rf "$work"
exit $((failures != 0))
