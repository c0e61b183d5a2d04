#!/usr/bin/env bash
# wgpt convert between safetensors, fzm and GGUF (greedy ids kept), GGUF files read by an
# independent reader (@huggingface/gguf), -m with a .gguf file or a hub id from the Hugging Face
# cache, and bad input.
source "$(dirname "$0")/cli_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
prompt="Hello, my dog is cute and it likes"
ids() {
  "$wgpt" generate -m "$1" -p "$prompt" -n 12 --greedy --json --backend "${2:-cpu}" 2>/dev/null |
    grep -o '"ids":\[[0-9,]*\]'
}
expected=$(ids "$tiny")
[ -n "$expected" ] || fail "no greedy ids from the fixture"

# GGUF in the stored types that keep greedy tokens, read back by wgpt.
for dtype in f32 f16 q8_0; do
  "$wgpt" convert -m "$tiny" -o "$scratch/tiny-$dtype.gguf" --dtype "$dtype" 2>/dev/null ||
    fail "convert to a $dtype GGUF"
  [ "$(ids "$scratch/tiny-$dtype.gguf")" = "$expected" ] || fail "the $dtype GGUF's greedy ids differ"
done
[ "$(ids "$scratch/tiny-q8_0.gguf" gpu)" = "$expected" ] || fail "the Q8_0 GGUF on the GPU differs"
[ "$("$wgpt" tokenize -m "$scratch/tiny-f16.gguf" "Hello world")" = "15496 995" ] ||
  fail "tokenize with a GGUF's vocabulary"

# The independent reader sees llama.cpp's names, shapes and types.
"$wgpt" convert -m "$tiny" -o "$scratch/tiny-q4_0.gguf" --dtype q4_0 2>/dev/null || fail "convert to Q4_0"
for pair in f32:F32 f16:F16 q8_0:Q8_0 q4_0:Q4_0; do
  out=$(NODE_PATH="$root/.deps/npm" node "$root/tests/gguf/read_with_huggingface_gguf.cjs" \
        "$scratch/tiny-${pair%%:*}.gguf" 2 64 128 50257 "${pair#*:}" 2>&1) ||
    fail "@huggingface/gguf on the ${pair#*:} file: $out"
done

# Back to a model directory, and through fzm: the vocabulary travels with the weights.
"$wgpt" convert -m "$scratch/tiny-q8_0.gguf" -o "$scratch/back" 2>/dev/null || fail "GGUF to safetensors"
for file in config.json model.safetensors vocab.json merges.txt; do
  [ -s "$scratch/back/$file" ] || fail "the converted directory lacks $file"
done
[ "$(ids "$scratch/back")" = "$(ids "$scratch/tiny-q8_0.gguf")" ] || fail "GGUF → safetensors changed the ids"
"$wgpt" convert -m "$tiny" -o "$scratch/tiny-fzm" --to fzm 2>/dev/null || fail "convert to fzm"
"$wgpt" convert -m "$scratch/tiny-fzm" -o "$scratch/from-fzm.gguf" 2>/dev/null || fail "fzm to GGUF"
[ "$(ids "$scratch/from-fzm.gguf")" = "$(ids "$scratch/tiny-fzm")" ] || fail "fzm → GGUF changed the ids"
"$wgpt" convert -m "$tiny" -o "$scratch/half" --dtype bf16 2>/dev/null || fail "convert to bf16 safetensors"
grep -q '"BF16"' "$scratch/half/model.safetensors" || fail "the bf16 directory holds no BF16 tensor"

# A hub id from the Hugging Face cache, laid out as huggingface_hub writes it.
snapshot=$scratch/hf/hub/models--someone--tiny/snapshots/0123abcd
mkdir -p "$snapshot" "$scratch/hf/hub/models--someone--tiny/refs"
cp "$tiny"/{config.json,model.safetensors,vocab.json,merges.txt} "$snapshot/"
echo 0123abcd >"$scratch/hf/hub/models--someone--tiny/refs/main"
[ "$(HF_HOME=$scratch/hf ids someone/tiny)" = "$expected" ] || fail "-m someone/tiny from the cache"
HF_HOME=$scratch/hf expect_error "a hub id not in the cache" \
  "looked for $scratch/hf/hub/models--nobody--nothing" "$wgpt" generate -m nobody/nothing -p a

# Bad input: clear errors, exit status 1.
expect_error "a GGUF type in safetensors" "is a GGUF type" \
  "$wgpt" convert -m "$tiny" -o "$scratch/x" --dtype q8_0
expect_error "--dtype with fzm" "does not apply to fzm" \
  "$wgpt" convert -m "$tiny" -o "$scratch/x" --to fzm --dtype f16
head -c 5000 "$scratch/tiny-f32.gguf" >"$scratch/cut.gguf"
expect_error "a truncated GGUF" "cut.gguf" "$wgpt" generate -m "$scratch/cut.gguf" -p a
echo "not a model" >"$scratch/text.gguf"
expect_error "a file that is not GGUF" "not a GGUF file" "$wgpt" generate -m "$scratch/text.gguf" -p a
finish
