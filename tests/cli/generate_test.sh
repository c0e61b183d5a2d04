#!/usr/bin/env bash
# wgpt generate / tokenize / capture / init from the command line, good input and bad.
source "$(dirname "$0")/cli_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
char=$root/tests/fixtures/hf/char-tiny
prompt="Hello, my dog is cute and it likes to play in the park."

# Greedy ids agree between the CPU reference and the GPU, and --json has every field.
cpu=$("$wgpt" generate -m "$tiny" -p "$prompt" -n 8 --greedy --json --backend cpu 2>/dev/null)
gpu=$("$wgpt" generate -m "$tiny" -p "$prompt" -n 8 --greedy --json --backend gpu 2>/dev/null)
ids() { grep -o '"ids":\[[0-9,]*\]' <<<"$1"; }
[ -n "$(ids "$cpu")" ] || fail "no ids in --json output: $cpu"
[ "$(ids "$cpu")" = "$(ids "$gpu")" ] || fail "CPU and GPU greedy ids differ: $(ids "$cpu") vs $(ids "$gpu")"
for field in prompt_ids text timings prompt_ms generate_ms; do
  grep -q "\"$field\"" <<<"$cpu" || fail "--json lacks $field"
done

# Streaming prints the prompt, then the continuation; timings go to stderr.
out=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 10 --seed 7 2>"$scratch/err")
[[ "$out" == ROMEO:* ]] || fail "streamed text does not start with the prompt: $out"
grep -q "generation: 10 tokens" "$scratch/err" || fail "no generation timings: $(cat "$scratch/err")"
again=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 10 --seed 7 2>/dev/null)
[ "$out" = "$again" ] || fail "the same seed gave different text"

# Sampling: for a seed the GPU chooses the CPU backend's tokens in every mode, and wgpt trace
# the same tokens as wgpt generate (the char fixture's choices lie far from the tolerance).
for mode in "--top-k 10" "--top-p 0.9 --temp 0.8" "--min-p 0.1 --temp 1.2" \
  "--top-k 20 --repeat-penalty 1.3 --presence-penalty 0.2 --frequency-penalty 0.1 --repeat-last-n 16 --logit-bias 1=-inf --logit-bias 2+1.5"; do
  # shellcheck disable=SC2086
  cpu=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 24 --seed 5 $mode --json --backend cpu 2>/dev/null)
  # shellcheck disable=SC2086
  gpu=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 24 --seed 5 $mode --json --backend gpu 2>/dev/null)
  [ -n "$(ids "$gpu")" ] && [ "$(ids "$cpu")" = "$(ids "$gpu")" ] ||
    fail "$mode: CPU and GPU sampled ids differ: $(ids "$cpu") vs $(ids "$gpu")"
  # shellcheck disable=SC2086
  "$wgpt" trace -m "$char" -p "ROMEO:" -n 24 --seed 5 $mode -o "$scratch/t.ndjson" --backend gpu >/dev/null 2>&1 ||
    fail "$mode: trace failed"
  traced="\"ids\":[$(grep -o '"step":[0-9]*,"token":[0-9]*' "$scratch/t.ndjson" | cut -d: -f3 | paste -sd,)]"
  [ "$traced" = "$(ids "$gpu")" ] || fail "$mode: trace's tokens differ: $traced vs $(ids "$gpu")"
done
expect_usage_error "top-p 0" "--top-p: '0' is not a number in (0, 1]" "$wgpt" generate -m "$char" -p "ROMEO:" --top-p 0
expect_usage_error "top-p over 1" "--top-p: '1.5' is not a number in (0, 1]" "$wgpt" trace -m "$char" -p "ROMEO:" --top-p 1.5 -o "$scratch/x.ndjson"
expect_usage_error "negative temperature" "--temp: '-1' is not a number in [0, inf]" "$wgpt" generate -m "$char" -p "ROMEO:" --temp -1
expect_error "penalty window over the context" "penalty window of 65 tokens is larger than the model's context of 64" \
  "$wgpt" generate -m "$char" -p "ROMEO:" --repeat-penalty 1.1 --repeat-last-n 65
expect_error "logit bias outside the vocabulary" "token id 65, which is outside the vocabulary of 65" \
  "$wgpt" generate -m "$char" -p "ROMEO:" --logit-bias 65=1
expect_usage_error "unreadable logit bias" "expected TOKEN_ID=BIAS" "$wgpt" generate -m "$char" -p "ROMEO:" --logit-bias x=1
expect_usage_error "min-p over 1" "--min-p: '2' is not a number in [0, 1]" "$wgpt" generate -m "$char" -p "ROMEO:" --min-p 2
expect_usage_error "negative top-k" "--top-k: '-1' is not a whole number from 0" \
  "$wgpt" generate -m "$char" -p "ROMEO:" --top-k -1

# tokenize
[ "$("$wgpt" tokenize -m "$tiny" "Hello world")" = "15496 995" ] || fail "tokenize Hello world"
[ "$(echo -n 'Hello world' | "$wgpt" tokenize -m "$tiny" --json -)" = '{"ids":[15496,995]}' ] || fail "tokenize --json from stdin"

# capture writes the golden names
"$wgpt" capture -m "$char" --ids 1,2,3 -o "$scratch/capture.safetensors" --backend cpu 2>/dev/null ||
  fail "capture failed"
for name in input_ids logits attn.0 attn.1 hidden.0 hidden.2; do
  grep -q "\"$name\"" "$scratch/capture.safetensors" || fail "capture lacks $name"
done

# init → generate: a fresh BPE model directory loads and runs
"$wgpt" init --config 2,2,32,64,50257 -o "$scratch/fresh" --seed 5 2>/dev/null || fail "init failed"
"$wgpt" generate -m "$scratch/fresh" -p "Hi" -n 3 --backend cpu >/dev/null 2>&1 || fail "generate on an init model failed"

# Bad input: clear errors, exit status 1, never a crash.
expect_error "empty prompt" "prompt is empty" "$wgpt" generate -m "$char" -p "" -n 3
expect_error "prompt over n_ctx" "more than the model's context of 64" \
  "$wgpt" generate -m "$char" -p "$(printf 'a%.0s' {1..70})" -n 3
expect_error "unknown character" "is not in the vocabulary" "$wgpt" generate -m "$char" -p "ROMEO é" -n 3
expect_error "missing model" "does not exist" "$wgpt" generate -m "$scratch/none" -p "a"
expect_error "invalid UTF-8" "not valid UTF-8" "$wgpt" tokenize -m "$tiny" $'\xff\xfe'
expect_error "token id too large" "outside the vocabulary" "$wgpt" capture -m "$char" --ids 1,99 -o "$scratch/x.safetensors"
expect_error "bad config name" "unknown model config" "$wgpt" init --config gpt5 -o "$scratch/y"
mkdir -p "$scratch/broken" && cp "$char/vocab.json" "$char/model.safetensors" "$scratch/broken/"
echo '{"n_layer": 2, "n_head": 2, "n_embd": 32, "vocab_size": 65}' >"$scratch/broken/config.json"
expect_error "config without n_ctx" "missing field 'n_ctx'" "$wgpt" generate -m "$scratch/broken" -p "a"
echo '{"n_layer": 3, "n_head": 2, "n_embd": 32, "n_ctx": 64, "vocab_size": 65}' >"$scratch/broken/config.json"
expect_error "shapes disagree with config" "checkpoint has no tensor 'h.2.ln_1.weight'" "$wgpt" generate -m "$scratch/broken" -p "a"
head -c 1000 "$char/model.safetensors" >"$scratch/broken/model.safetensors"
echo '{"n_layer": 2, "n_head": 2, "n_embd": 32, "n_ctx": 64, "vocab_size": 65}' >"$scratch/broken/config.json"
expect_error "truncated safetensors" "model.safetensors" "$wgpt" generate -m "$scratch/broken" -p "a"
finish
