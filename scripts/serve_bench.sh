#!/bin/bash
# Measures `wgpt serve` with each step engine: for every engine, starts a server on MODEL_DIR (GPU
# backend), waits for it to listen, runs `wgpt serve-bench` once per temperature (a table row per
# concurrency: aggregate tok/s, per-stream tok/s, time-to-first-token p50/p90/p99), then stops it
# with SIGTERM. The tables go to stdout, each server's log to LOG_DIR/serve_ENGINE.log.
#
# Usage: scripts/serve_bench.sh WGPT MODEL_DIR LOG_DIR [ENGINES]
#   ENGINES       comma-separated `--engine` values (default: sequential,batched)
# Environment (defaults): CLIENTS (1,8,32,64), TOKENS per stream (128), PROMPT_TOKENS (16),
#   TEMPERATURES (0,0.8: greedy, then sampled), PARALLEL slots (64), PORT (8321), VOCAB (50257),
#   STARTUP_SECONDS to wait for the listening line (300).
set -u
if [ $# -lt 3 ] || [ "$1" = "--help" ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
wgpt=$1 model=$2 logs=$3 engines=${4:-sequential,batched}
clients=${CLIENTS:-1,8,32,64} tokens=${TOKENS:-128} prompt_tokens=${PROMPT_TOKENS:-16}
temperatures=${TEMPERATURES:-0,0.8} parallel=${PARALLEL:-64} port=${PORT:-8321}
vocab=${VOCAB:-50257} startup=${STARTUP_SECONDS:-300}
mkdir -p "$logs"
status=0
for engine in ${engines//,/ }; do
  log="$logs/serve_$engine.log"
  echo "serve_bench: starting the server (--engine $engine, --parallel $parallel)" >&2
  "$wgpt" serve -m "$model" --backend gpu --engine "$engine" --parallel "$parallel" \
    --queue 1024 --port "$port" >"$log" 2>&1 &
  server=$!
  for ((i = 0; i < startup * 2; i++)); do
    grep -q listening "$log" && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.5
  done
  if ! grep -q listening "$log"; then
    echo "serve_bench: the server (--engine $engine) did not listen within ${startup} s; its log:" >&2
    tail -20 "$log" >&2
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    status=1
    continue
  fi
  echo "serve_bench: listening after $((i / 2)) s" >&2
  for temperature in ${temperatures//,/ }; do
    echo
    echo "engine $engine, temperature $temperature, $tokens tokens per stream after a prompt of $prompt_tokens:"
    echo
    "$wgpt" serve-bench --port "$port" --clients "$clients" -n "$tokens" \
      --prompt-tokens "$prompt_tokens" --temperature "$temperature" --vocab "$vocab" || status=1
  done
  kill -TERM "$server"
  wait "$server"
done
exit $status
