#!/usr/bin/env bash
# The measurements behind docs/benchmarks.md's summary table and the performance lines of issues
# 12 (sampling, scoring), 13 (decoding) and 14 (prompts, training), on this machine's GPU, with
# the PyTorch peer in the same run. Each part takes a few minutes at most on an H200, so a GPU lent
# by the minute can run them a call at a time; every `wgpt bench` command is echoed before it runs,
# and the output is markdown, ready to paste beside the date, the adapter and the commit that the
# info part prints.
#
# Usage: scripts/issue_bench.sh WGPT PART...
#   WGPT  the wgpt binary
#   PART  info      date, `wgpt --version`, `wgpt info`, the GPU's clocks where nvidia-smi exists
#         peer      the PyTorch peer (PEER=path to torch_baseline.py; python3 with PyTorch)
#         decode    GPT-2 124M tg256 in f16 (2, 3 and 4 steps in flight), f32, bf16 and q4, and
#                   with the attention probe on (issue 13)
#         sampling  tg256 greedy beside top-k 40, top-p 0.95, temperature 1, each alone and with a
#                   repetition penalty (issue 12)
#         prompt    pp128 and pp1024, one submit per pass and split every 16 (the default), 32 and
#                   64 dispatches; then every product and the prompt's attention at pp1024 (issue 14)
#         score     scoring 16,384 tokens with the top 5 alternatives, split every 16 dispatches
#                   (the default) and one submit per pass (issue 12)
#         train     training 8 × 1024, split every 16 dispatches (the default) and one submit per
#                   step (issue 14)
#         serve     the batched decode step of `wgpt serve --engine batched` at 1, 8, 32 and 64
#                   sequences against the same sequences one at a time (its products are the 64×64
#                   kernel's, split 64 deep: a change to that kernel is measured here too)
#         medium    gpt2-medium: tg256 in f16 and q4, pp512, training (issues 13 and 14)
#         large     gpt2-large and gpt2-xl tg256 in f16 (issue 13)
#         all       every part above, in that order (given alone)
# Environment (defaults): PEER (unset: the peer part says so and fails), REPS repetitions per row (5),
# ALSO (unset): more wgpt binaries, space-separated, each of which runs every `wgpt bench` command
# right after WGPT's, so that a change is measured beside the binary before it in the same call
# (the GPU's clocks and the host vary from call to call); each command is echoed with its binary.
# An entry NAME=VALUE@BINARY runs BINARY with that environment variable set (a run-time choice
# measured beside the default: WGPT_PROMPT_ATTENTION=quarters@build/wgpt).
set -u
if [ $# -lt 2 ] || [ "$1" = "--help" ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"  # the comment above
  exit 2
fi
wgpt=$1
shift
reps=${REPS:-5}
status=0

# Runs one command after echoing it; a failure is reported and remembered, and the next part runs.
run() {
  printf '\n$ %s\n' "$*"
  "$@" || { echo "issue_bench: failed (exit $?): $*" >&2; status=1; }
}

bench() {
  local binary
  for binary in "$wgpt" ${ALSO:-}; do
    if [[ $binary == *=*@* ]]; then
      run env "${binary%%@*}" "${binary#*@}" bench "$@"
      continue
    fi
    run "$binary" bench "$@"
  done
}

part() {
  case $1 in
    info)
      run date -u '+%Y-%m-%d %H:%M UTC'
      for binary in "$wgpt" ${ALSO:-}; do
        run "${binary#*@}" --version
      done
      run "$wgpt" info
      if command -v nvidia-smi >/dev/null; then
        run nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
      fi
      ;;
    peer)
      if [ ! -f "${PEER:-}" ]; then
        echo "issue_bench: set PEER to the path of torch_baseline.py for the peer part" >&2
        status=1
        return
      fi
      run python3 "$PEER"
      ;;
    decode)
      bench --config gpt2 -p 0 -n 256 -r "$reps" --dtype f16 --steps-in-flight 2,3,4 --probe
      for dtype in f32 bf16 q4; do
        bench --config gpt2 -p 0 -n 256 -r "$reps" --dtype "$dtype"
      done
      ;;
    sampling)
      bench --config gpt2 -p 0 -n 256 -r "$reps" --dtype f16 \
        --sampling top-k=40 --sampling top-p=0.95 --sampling temp=1 \
        --sampling top-k=40,repeat-penalty=1.1 --sampling top-p=0.95,repeat-penalty=1.1 \
        --sampling temp=1,repeat-penalty=1.1
      ;;
    prompt)
      bench --config gpt2 -p 128,1024 -n 0 -r $((reps + 3)) --dispatches-per-submit 0,16,32,64
      bench --config gpt2 -p 1024 -n 0 -r 3 --products
      ;;
    score)
      bench --config gpt2 -p 0 -n 0 -r "$reps" --score 16384 --dispatches-per-submit 16,0
      ;;
    train)
      bench --config gpt2 -p 0 -n 0 --train --train-steps 3 --dispatches-per-submit 16,0
      ;;
    serve)
      bench --config gpt2 -p 0 -n 0 --batch-decode 1,8,32,64
      ;;
    medium)
      bench --config gpt2-medium -p 512 -n 256 -r "$reps" --dtype f16
      bench --config gpt2-medium -p 0 -n 256 -r "$reps" --dtype q4
      bench --config gpt2-medium -p 0 -n 0 --train --train-steps 3
      ;;
    large)
      for config in gpt2-large gpt2-xl; do
        bench --config "$config" -p 0 -n 256 -r "$reps" --dtype f16
      done
      ;;
    *)
      echo "issue_bench: no part '$1' (--help lists them)" >&2
      status=2
      ;;
  esac
}

parts=("$@")
if [ "${parts[*]}" = all ]; then
  parts=(info peer decode sampling prompt score train serve medium large)
fi
for name in "${parts[@]}"; do
  printf '\n## %s\n' "$name"
  part "$name"
done
exit $status
