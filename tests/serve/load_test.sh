#!/usr/bin/env bash
# `wgpt serve` under load on the GPU (llvmpipe in CI) with a small model: rounds of 32 concurrent
# streaming clients, none of which may fail, and resident memory that stays bounded; then
# `wgpt serve-bench` against the same server. On the batched engine, which `--engine auto` leaves
# for hardware GPUs: this is the many-streams case it is for.
source "$(dirname "$0")/../cli/cli_support.sh"
source "$(dirname "$0")/serve_support.sh"
start_server load -m "$root/tests/fixtures/hf/char-tiny" --parallel 16 --queue 24 \
  --engine batched
grep -q "slots (batched engine)" "$scratch/load.log" ||
  fail "the server does not say it runs the batched engine: $(cat "$scratch/load.log")"
node "$root/tests/serve/load_test.mjs" "http://127.0.0.1:$load_port" char-tiny "$load_pid" \
  32 4 24 16 || fail "the load test"
metric_is "$load_port" wgpt_generated_tokens_total $((4 * 32 * 24)) ||
  fail "/metrics counts $(metric "$load_port" wgpt_generated_tokens_total) tokens, not $((4 * 32 * 24))"
metric_is "$load_port" wgpt_slots_busy 0 || fail "slots still busy after the load"

# wgpt serve-bench: one row per client count, every stream complete, exactly -n tokens each.
"$wgpt" serve-bench --port "$load_port" --model-name char-tiny --vocab 65 --clients 1,5 -n 7 \
  --prompt-tokens 3 >"$scratch/bench.md" 2>"$scratch/bench.log" || fail "serve-bench: $(cat "$scratch/bench.log")"
for clients in 1 5; do
  grep -q "^| $clients | $clients | $((clients * 7)) | " "$scratch/bench.md" ||
    fail "serve-bench's row for $clients clients: $(cat "$scratch/bench.md")"
done
# A refused request is a failed stream, and a failure: a prompt id outside the vocabulary.
"$wgpt" serve-bench --port "$load_port" --vocab 1000 --clients 2 -n 2 --prompt-tokens 40 \
  >/dev/null 2>"$scratch/bench.log" && fail "serve-bench succeeded with ids outside the vocabulary"
grep -q "2 of 2 streams failed; the first: status 400" "$scratch/bench.log" ||
  fail "serve-bench's failure report: $(cat "$scratch/bench.log")"
finish
