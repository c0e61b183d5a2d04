#!/usr/bin/env bash
# wgpt top --list on a folder of good and broken models: one line per checkpoint with the right
# verdict; and the dashboard's plain refusal when stdout is not a terminal (the dashboard itself
# is driven through a pseudo-terminal by tests/top/top_pty_test.cpp).
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny
tiny=$root/tests/fixtures/hf/gpt2-tiny
models=$scratch/models

mkdir -p "$models/char" "$models/bpe" "$models/no-config" "$models/no-vocab" "$models/wrong-shape" \
  "$models/corrupt" "$models/stems" "$models/deep/a/b/c" "$models/deeper/a/b/c/d" "$models/.hidden"
cp "$char"/{config.json,vocab.json,model.safetensors} "$models/char/"
cp "$tiny"/{config.json,vocab.json,merges.txt,model.safetensors} "$models/bpe/"
cp "$char/model.safetensors" "$models/no-config/"
cp "$char"/{config.json,model.safetensors} "$models/no-vocab/"
cp "$char"/{vocab.json,model.safetensors} "$models/wrong-shape/"
sed 's/"n_layer": 2/"n_layer": 3/' "$char/config.json" >"$models/wrong-shape/config.json"
cp "$char"/{config.json,vocab.json} "$models/corrupt/"
head -c 5000 "$char/model.safetensors" >"$models/corrupt/model.safetensors"
# Two checkpoints in one folder, each with its own sidecars (stem.config.json, stem.vocab.json).
"$wgpt" init --config 1,2,16,32,65 -o "$scratch/init" --seed 1 >/dev/null 2>&1 || fail "init failed"
cp "$scratch/init/model.safetensors" "$models/stems/small.safetensors"
cp "$scratch/init/config.json" "$models/stems/small.config.json"
cp "$char/vocab.json" "$models/stems/small.vocab.json"
cp "$char/model.safetensors" "$models/stems/other.safetensors"  # no sidecars of its own, none shared
cp -r "$models/char/." "$models/deep/a/b/c/"        # four folders down: found
cp -r "$models/char/." "$models/deeper/a/b/c/d/"    # five: beyond the scan's depth
cp -r "$models/char/." "$models/.hidden/"           # hidden folders are skipped
printf 'GGUF' >"$models/llama.gguf"
printf 'FZM1\x05' >"$models/truncated.fzm"

list=$("$wgpt" top --list --path "$models" 2>"$scratch/err")
[ $? -eq 0 ] || fail "--list failed: $(cat "$scratch/err")"
verdict() { awk -F'\t' -v name="$1" '$1 == name { print $NF }' <<<"$list"; }
expect_verdict() {
  local got
  got=$(verdict "$1")
  [[ "$got" == "$2"* ]] || fail "$1: expected '$2', got '$got'"
}
expect_verdict "char/model.safetensors" "runnable"
expect_verdict "bpe/model.safetensors" "runnable"
expect_verdict "stems/small.safetensors" "runnable"
expect_verdict "deep/a/b/c/model.safetensors" "runnable"
expect_verdict "no-config/model.safetensors" "not runnable: no config.json beside it"
expect_verdict "no-vocab/model.safetensors" "not runnable: no tokenizer"
expect_verdict "wrong-shape/model.safetensors" "not runnable: the checkpoint has no tensor 'h.2.ln_1.weight' (nor 'transformer.h.2.ln_1.weight')"
expect_verdict "corrupt/model.safetensors" "not runnable: "
expect_verdict "stems/other.safetensors" "not runnable: no config.json beside it"
expect_verdict "llama.gguf" "not runnable: GGUF is not supported yet"
expect_verdict "truncated.fzm" "not runnable: "
[ "$(wc -l <<<"$list")" = 11 ] || fail "expected 11 models, got: $list"
grep -q "deeper/" <<<"$list" && fail "the scan went deeper than four folders"
grep -q ".hidden/" <<<"$list" && fail "the scan entered a hidden folder"
grep -qP '^char/model.safetensors\t153608\t37792\t30\t2/2/32\t64\tchar\trunnable$' <<<"$list" ||
  fail "the char model's line is wrong: $(grep '^char/' <<<"$list")"
grep -q "11 model(s) in" "$scratch/err" || fail "no count on stderr: $(cat "$scratch/err")"

# Not a terminal: a plain message, no escape codes.
expect_error "stdout not a terminal" "stdout is not a terminal" "$wgpt" top --path "$models"
expect_error "missing folder" "is neither a folder nor a file" "$wgpt" top --list --path "$scratch/none"
finish
