#!/usr/bin/env bash
# A newcomer's command line: prompts from standard input and files, stop strings, context shift
# past the context, -o - for standard output, which backend `auto` takes, and --version.
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny
prompt_ids() { grep -o '"prompt_ids":\[[0-9,]*\]' <<<"$1"; }
ids() { grep -o '"ids":\[[0-9,]*\]' <<<"$1"; }
text_of() { node -e 'process.stdout.write(JSON.parse(process.argv[1]).text)' "$1"; }

# Prompts: -p TEXT, -p - (standard input) and -f FILE are the same prompt.
printf 'ROMEO:\nWhat' >"$scratch/prompt.txt"
from_text=$("$wgpt" generate -m "$char" -p "$(cat "$scratch/prompt.txt")" -n 4 --greedy --json --backend cpu 2>/dev/null)
from_stdin=$("$wgpt" generate -m "$char" -p - -n 4 --greedy --json --backend cpu <"$scratch/prompt.txt" 2>/dev/null)
from_file=$("$wgpt" generate -m "$char" -f "$scratch/prompt.txt" -n 4 --greedy --json --backend cpu 2>/dev/null)
[ -n "$(prompt_ids "$from_text")" ] || fail "no prompt_ids: $from_text"
[ "$(prompt_ids "$from_stdin")" = "$(prompt_ids "$from_text")" ] || fail "-p - read another prompt: $from_stdin"
[ "$(prompt_ids "$from_file")" = "$(prompt_ids "$from_text")" ] || fail "-f read another prompt: $from_file"
streamed=$("$wgpt" trace -m "$char" -p - -n 3 --greedy -o "$scratch/t.ndjson" --backend cpu <"$scratch/prompt.txt" 2>/dev/null)
[[ "$streamed" == "ROMEO:"$'\n'"What"* ]] || fail "trace -p - streamed another prompt: $streamed"
expect_error "missing prompt file" "cannot read $scratch/none.txt: no such file" \
  "$wgpt" generate -m "$char" -f "$scratch/none.txt"
expect_error "no prompt at all" "give some text with -p TEXT, -p - (standard input) or -f FILE" \
  "$wgpt" generate -m "$char" -n 3
expect_error "empty standard input" "the prompt is empty" "$wgpt" generate -m "$char" -p - </dev/null
"$wgpt" generate -m "$char" -p "a" -f "$scratch/prompt.txt" >/dev/null 2>"$scratch/err" &&
  fail "-p and -f together were accepted"
grep -q "excludes" "$scratch/err" || fail "-p with -f: $(cat "$scratch/err")"

# Stop strings: the text ends just before the first one, streamed and in --json alike.
full=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 40 --greedy --ignore-eos --json --backend cpu 2>/dev/null)
full_text=$(text_of "$full")
stop=${full_text:12:3}
before=${full_text%%"$stop"*}
stopped=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 40 --greedy --ignore-eos --stop "never" --stop "$stop" \
  --json --backend cpu 2>/dev/null)
[ "$(text_of "$stopped")" = "$before" ] || fail "--stop '$stop': text '$(text_of "$stopped")', expected '$before'"
grep -q '"stop":"stop string"' <<<"$stopped" || fail "--stop: no stop reason: $stopped"
out=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 40 --greedy --ignore-eos --stop "$stop" --backend cpu 2>"$scratch/err")
[ "$out" = "ROMEO:$before" ] || fail "--stop streamed '$out', expected 'ROMEO:$before'"
grep -q "(stop: stop string)" "$scratch/err" || fail "--stop: $(cat "$scratch/err")"
expect_error "empty stop string" "--stop needs a non-empty string" "$wgpt" generate -m "$char" -p "a" --stop ""

# Context shift: past the 64-token context by default, on the CPU and the GPU alike; off, a wall.
cpu=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 150 --greedy --ignore-eos --json --backend cpu 2>"$scratch/err")
grep -q '"stop":"token limit"' <<<"$cpu" || fail "-n 150 past the context stopped early: $cpu"
[ "$(ids "$cpu" | tr ',' '\n' | wc -l)" -eq 150 ] || fail "-n 150 gave $(ids "$cpu" | tr ',' '\n' | wc -l) tokens"
grep -q '"context_shifts":[1-9]' <<<"$cpu" || fail "no context shift reported: $cpu"
grep -q "its oldest half was dropped" "$scratch/err" || fail "the shift is not explained: $(cat "$scratch/err")"
gpu=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 150 --greedy --ignore-eos --json --backend gpu 2>/dev/null)
[ "$(ids "$gpu")" = "$(ids "$cpu")" ] || fail "the GPU's shifted run differs from the CPU's: $(ids "$gpu")"
sampled_cpu=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 100 --top-k 10 --seed 3 --ignore-eos --json --backend cpu 2>/dev/null)
sampled_gpu=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 100 --top-k 10 --seed 3 --ignore-eos --json --backend gpu 2>/dev/null)
[ "$(ids "$sampled_gpu")" = "$(ids "$sampled_cpu")" ] || fail "sampled shifted runs differ between CPU and GPU"
wall=$("$wgpt" generate -m "$char" -p "ROMEO:" -n 150 --greedy --ignore-eos --no-context-shift --json --backend cpu 2>"$scratch/err")
grep -q '"stop":"context full"' <<<"$wall" || fail "--no-context-shift did not stop at the context: $wall"
grep -q "context of 64 tokens is full" "$scratch/err" || fail "--no-context-shift: $(cat "$scratch/err")"

# -o -: the trace on standard output, the text as progress on standard error; no file named "-".
(cd "$scratch" && "$wgpt" trace -m "$char" -p "ROMEO:" -n 5 -o - --backend cpu >"$scratch/stdout.ndjson" 2>"$scratch/err") ||
  fail "trace -o - failed: $(cat "$scratch/err")"
[ "$(wc -l <"$scratch/stdout.ndjson")" -eq 5 ] || fail "trace -o -: $(wc -l <"$scratch/stdout.ndjson") lines, expected 5"
head -1 "$scratch/stdout.ndjson" | grep -q '^{"step":0,' || fail "trace -o - does not start with step 0"
grep -q "^ROMEO:" "$scratch/err" || fail "trace -o -: the text is not on standard error: $(cat "$scratch/err")"
grep -q "step records to standard output" "$scratch/err" || fail "trace -o -: $(cat "$scratch/err")"
(cd "$scratch" && "$wgpt" trace -m "$char" -p "ROMEO:" -n 3 --html - --backend cpu >"$scratch/page.html" 2>/dev/null) ||
  fail "trace --html - failed"
grep -qi "<!doctype html>" "$scratch/page.html" || fail "trace --html - wrote no page"
(cd "$scratch" && "$wgpt" data brown -o - >"$scratch/brown.txt" 2>"$scratch/err") || fail "data brown -o - failed"
grep -q "wrote standard output: [0-9]* paragraphs" "$scratch/err" || fail "data brown -o -: $(cat "$scratch/err")"
[ "$(wc -c <"$scratch/brown.txt")" -gt 1000000 ] || fail "data brown -o - wrote $(wc -c <"$scratch/brown.txt") bytes"
[ ! -e "$scratch/-" ] || fail "a file named '-' was written"
expect_error "both on standard output" "both name standard output" \
  "$wgpt" trace -m "$char" -p "a" -o - --html -
expect_error "safetensors to standard output" "safetensors is a binary format" \
  "$wgpt" trace -m "$char" -p "a" --format safetensors -o -
expect_error "capture to standard output" "safetensors is a binary format" \
  "$wgpt" capture -m "$char" -p "a" -o -

# The backend: auto takes the CPU where the only adapter is a software rasteriser, and says so.
"$wgpt" info >"$scratch/info" 2>&1 || fail "wgpt info failed: $(cat "$scratch/info")"
"$wgpt" generate -m "$char" -p "ROMEO:" -n 3 >/dev/null 2>"$scratch/err" || fail "generate with the default backend failed"
if grep -q "kind:.*software rasteriser" "$scratch/info"; then
  grep -q "^backend: cpu (the WebGPU adapter, .*, is a software rasteriser" "$scratch/err" ||
    fail "auto on a software adapter did not take the CPU: $(cat "$scratch/err")"
else
  grep -q "^backend: gpu (" "$scratch/err" || fail "auto on a GPU did not take it: $(cat "$scratch/err")"
fi
"$wgpt" generate -m "$char" -p "ROMEO:" -n 3 --backend gpu >/dev/null 2>"$scratch/err" || fail "--backend gpu failed"
grep -q "^backend:" "$scratch/err" && fail "--backend gpu announced a choice it did not make"
"$wgpt" info --adapter auto >/dev/null 2>&1 || fail "info --adapter auto failed"
# WebGPU's checks inside kernels: on unless WGPT_KERNEL_CHECKS=0, which info reports.
grep -q "^checks: *on " "$scratch/info" || fail "info: the checks are not on by default: $(cat "$scratch/info")"
WGPT_KERNEL_CHECKS=0 "$wgpt" info >"$scratch/info_unchecked" 2>&1 || fail "info without the checks failed"
grep -q "^checks: *off " "$scratch/info_unchecked" || fail "WGPT_KERNEL_CHECKS=0: $(cat "$scratch/info_unchecked")"
expect_error "WGPT_KERNEL_CHECKS=maybe" "WGPT_KERNEL_CHECKS='maybe' (expected 1, on, true, 0, off or false)" \
  env WGPT_KERNEL_CHECKS=maybe "$wgpt" info
# WGPT_KERNEL_DIR: the kernels edited in a folder that `info --dump-kernels` filled replace the
# built-in ones, and info and bench name them (an edit that breaks the self-test fails info).
"$wgpt" info --dump-kernels "$scratch/kernels" >/dev/null || fail "info --dump-kernels failed"
[ -s "$scratch/kernels/matmul_wide_vec4.f16.wgsl" ] || fail "the dump has no matmul_wide_vec4.f16.wgsl"
sed -i 's/input\[id.x\] \* 2.0/input[id.x] * 3.0/' "$scratch/kernels/self_test.wgsl"
WGPT_KERNEL_DIR=$scratch/kernels "$wgpt" info >"$scratch/info_edited" 2>&1 &&
  fail "the edited self-test passed: $(cat "$scratch/info_edited")"
grep -q "^kernels: *1 replaced from .*: self_test$" "$scratch/info_edited" &&
  grep -q "^self-test: *FAILED" "$scratch/info_edited" ||
  fail "info with an edited self_test: $(cat "$scratch/info_edited")"
WGPT_KERNEL_DIR=$scratch/kernels "$wgpt" bench -m "$char" --backend gpu -p 4 -n 0 -r 1 -o json \
  >"$scratch/edited.json" 2>/dev/null || fail "bench with a kernel folder failed"
grep -q '"kernels_replaced": "self_test"' "$scratch/edited.json" ||
  fail "bench does not name the replaced kernel: $(cat "$scratch/edited.json")"
touch "$scratch/kernels/no_such_kernel.wgsl"
expect_error "a kernel folder naming no kernel" "no_such_kernel.wgsl names no kernel of this build" \
  env WGPT_KERNEL_DIR="$scratch/kernels" "$wgpt" info
expect_error "unknown adapter" "unknown WebGPU backend 'glide'" "$wgpt" generate -m "$char" -p "a" --adapter glide

# --version: the version, the commit this binary was built from, and the WebGPU library.
"$wgpt" --version >"$scratch/version" || fail "--version failed"
grep -q "^wgpt [0-9]*\.[0-9]*\.[0-9]*$" "$scratch/version" || fail "--version: $(cat "$scratch/version")"
grep -q "^commit: [0-9a-f]\{7,\}" "$scratch/version" || fail "--version names no commit: $(cat "$scratch/version")"
grep -q "^webgpu: ." "$scratch/version" || fail "--version names no WebGPU library"
finish
