#!/usr/bin/env bash
# `wgpt serve` under load on the GPU (llvmpipe in CI) with a small model: rounds of 32 concurrent
# streaming clients, none of which may fail, and resident memory that stays bounded.
source "$(dirname "$0")/../cli/cli_support.sh"
source "$(dirname "$0")/serve_support.sh"
start_server load -m "$root/tests/fixtures/hf/char-tiny" --parallel 16 --queue 24
node "$root/tests/serve/load_test.mjs" "http://127.0.0.1:$load_port" char-tiny "$load_pid" \
  32 4 24 16 || fail "the load test"
metric_is "$load_port" wgpt_generated_tokens_total $((4 * 32 * 24)) ||
  fail "/metrics counts $(metric "$load_port" wgpt_generated_tokens_total) tokens, not $((4 * 32 * 24))"
metric_is "$load_port" wgpt_slots_busy 0 || fail "slots still busy after the load"
finish
