#!/usr/bin/env bash
# wgpt bench: a row per sampling mode and one for scoring, as JSON; both precisions with their
# parity, the products and training (issue 14's figures); bad specs.
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny
# A bench run without the clocks' warm-up (--warmup-seconds 0): after --warmup's repetitions a row
# is otherwise repeated untimed for a second, for a GPU's clock governor — most of this test's time
# on llvmpipe, and checked once below.
quick_bench() { "$wgpt" bench --warmup-seconds 0 "$@"; }

quick_bench -m "$char" -p 8 -n 4 --gen-prompt 4 -r 1 --sampling top-k=5 \
  --sampling "top-p=0.9,repeat-penalty=1.2" --score 100 -o json >"$scratch/bench.json" 2>"$scratch/err" ||
  fail "bench failed: $(cat "$scratch/err")"
node -e "
  const rows = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
  const tests = rows.map((r) => r.test);
  const want = ['pp8 mixed', 'tg4', 'tg4 top-k=5', 'tg4 top-p=0.9,repeat-penalty=1.2', 'score100 top 5'];
  if (JSON.stringify(tests) !== JSON.stringify(want)) throw new Error(JSON.stringify(tests));
  for (const r of rows) if (!(r.tok_per_s_mean > 0)) throw new Error(r.test + ': ' + r.tok_per_s_mean);
  const sampled = rows.find((r) => r.test === 'tg4 top-k=5');
  // Four steps a submit by default (model::Decoder::Tuning): tg4 is one submit.
  if (sampled.submits_per_token !== 0.25 || sampled.buffers_created_per_token !== 0)
    throw new Error('a sampled step: ' + JSON.stringify(sampled));
  // The host's recording time is counted, and is part of the step's wall time.
  if (!(sampled.host_recording_us_per_token > 0 &&
        sampled.host_recording_us_per_token < 1000 * sampled.ms_per_token))
    throw new Error('host recording time: ' + JSON.stringify(sampled));
" "$scratch/bench.json" || fail "bench --sampling/--score rows are not as documented"
grep -q "score100 top 5: repetition 1/1" "$scratch/err" || fail "no scoring progress: $(cat "$scratch/err")"

# Value lists and csv: one row per size, the same columns as json.
quick_bench -m "$char" -p 4,8 -n 2,3 --gen-prompt 4 -r 1 -o csv >"$scratch/bench.csv" 2>"$scratch/err" ||
  fail "bench -o csv failed: $(cat "$scratch/err")"
head -1 "$scratch/bench.csv" | grep -q '^model,params,weights,weight_bytes,backend,adapter,test,tokens,' ||
  fail "csv header: $(head -1 "$scratch/bench.csv")"
[ "$(grep -oE '"(pp|tg)[0-9]+[^"]*"' "$scratch/bench.csv" | paste -sd' ')" = '"pp4 mixed" "pp8 mixed" "tg2" "tg3"' ] &&
  [ "$(wc -l <"$scratch/bench.csv")" -eq 5 ] ||
  fail "csv rows: $(cat "$scratch/bench.csv")"
# Progress written to a file is one plain line per update, no carriage returns.
grep -q $'\r' "$scratch/err" && fail "progress lines in a file hold carriage returns"
grep -q "^tg3: repetition 1/1$" "$scratch/err" || fail "no plain progress line: $(cat "$scratch/err")"

# --warmup: untimed repetitions before each tgN too, shown as progress; 0 runs none.
quick_bench -m "$char" -p 0 -n 3 --gen-prompt 4 -r 1 --warmup 2 >/dev/null 2>"$scratch/err" ||
  fail "bench --warmup 2 failed: $(cat "$scratch/err")"
grep -q "^tg3: warm-up 2/2$" "$scratch/err" || fail "no tgN warm-up progress: $(cat "$scratch/err")"
grep -q "(clocks)" "$scratch/err" && fail "--warmup-seconds 0 warmed up for the clocks: $(cat "$scratch/err")"
# --warmup-seconds (default 1): after --warmup's repetitions, more until that long after the first
# (on the CPU backend, whose first step compiles nothing, so that a second one surely fits).
"$wgpt" bench -m "$char" -p 0 -n 3 --gen-prompt 4 -r 1 --warmup 1 --warmup-seconds 0.5 --backend cpu \
  >/dev/null 2>"$scratch/err" || fail "bench --warmup-seconds 0.5 failed: $(cat "$scratch/err")"
grep -q "^tg3: warm-up 2 (clocks)$" "$scratch/err" || fail "no warm-up for the clocks: $(cat "$scratch/err")"
quick_bench -m "$char" -p 0 -n 3 --gen-prompt 4 -r 1 --warmup 0 >/dev/null 2>"$scratch/err" ||
  fail "bench --warmup 0 failed: $(cat "$scratch/err")"
grep -q "warm-up" "$scratch/err" && fail "--warmup 0 ran a warm-up: $(cat "$scratch/err")"

# --warm-weights: a tgN row for each value, the warming one named so.
quick_bench -m "$char" -p 0 -n 3 --gen-prompt 4 -r 1 --warm-weights off,on -o csv \
  >"$scratch/warm.csv" 2>"$scratch/err" || fail "bench --warm-weights failed: $(cat "$scratch/err")"
[ "$(grep -oE '"tg[0-9]+[^"]*"' "$scratch/warm.csv" | paste -sd' ')" = '"tg3" "tg3 warm"' ] ||
  fail "--warm-weights rows: $(cat "$scratch/warm.csv")"
expect_usage_error "bad --warm-weights" "warm-weights" "$wgpt" bench -m "$char" -n 3 --warm-weights maybe

# --dispatches-per-submit: the ppN and scoring rows once for each value, those not at the default
# (16) named; a decode step is one submit whatever the value, so tgN is measured once.
quick_bench -m "$char" -p 8 -n 3 --gen-prompt 4 -r 1 --score 40 --dispatches-per-submit 0,5,16 -o csv \
  >"$scratch/submit.csv" 2>"$scratch/err" || fail "bench --dispatches-per-submit failed: $(cat "$scratch/err")"
[ "$(grep -oE '"(pp|tg|score)[0-9]+[^"]*"' "$scratch/submit.csv" | paste -sd' ')" = \
  '"pp8 mixed (0 per submit)" "pp8 mixed (5 per submit)" "pp8 mixed" "tg3" "score40 top 5 (0 per submit)" "score40 top 5 (5 per submit)" "score40 top 5"' ] ||
  fail "--dispatches-per-submit rows: $(cat "$scratch/submit.csv")"
expect_usage_error "bad --dispatches-per-submit" "dispatches-per-submit" "$wgpt" bench -m "$char" -n 3 \
  --dispatches-per-submit -1

# The defaults suit a small model: a test past its context is skipped with a note.
quick_bench -m "$root/assets/brown-char" -r 1 --backend cpu -o json >"$scratch/brown.json" 2>"$scratch/err" ||
  fail "bench -m assets/brown-char with its defaults failed: $(cat "$scratch/err")"
grep -q "pp512 skipped: it needs 512 positions, the model's context is 256" "$scratch/err" || fail "no skip note: $(cat "$scratch/err")"
grep -q '"test": "tg128"' "$scratch/brown.json" || fail "no tg128 row: $(cat "$scratch/brown.json")"
expect_error "nothing fits" "nothing to measure" "$wgpt" bench -m "$char" -p 100 -n 0 -r 1

# Every figure of docs/benchmarks.md's final measurement, on a tiny model.
quick_bench -m "$char" -p 8,16,8 -n 0 -r 2 --warmup 1 --precision both --products --train \
  --train-batch 2 --train-seq 8 --train-steps 2 >"$scratch/both.md" 2>"$scratch/err" ||
  fail "bench --precision both --products --train failed: $(cat "$scratch/err")"
for row in "| pp8 f32 |" "| pp16 f32 |" "| pp8 f32 again |" "| pp8 mixed |" "| pp16 mixed |" \
  "| pp8 mixed again |" "| pp16 mlp down | mixed |" \
  "| train lm head dwte | f32 |" "| train probs·v | mixed |"; do
  grep -qF -- "$row" "$scratch/both.md" || fail "no row '$row' in: $(cat "$scratch/both.md")"
done
[ "$(grep -cE '^\| (f32|mixed) \| [0-9.]+ ± ' "$scratch/both.md")" -eq 2 ] ||
  fail "no training row per precision in: $(cat "$scratch/both.md")"
[ "$(grep -c "^pp8 parity" "$scratch/both.md")" -eq 1 ] || fail "pp8's parity not once: $(cat "$scratch/both.md")"
parity=$(grep "^pp16 parity, mixed against f32" "$scratch/both.md")
band=$(grep "^Loss band: mixed within" "$scratch/both.md")
if grep -q "no tensor cores here" <<<"$parity"; then
  # Without tensor cores both precisions run the same kernels: equal to the bit (docs/precision.md).
  grep -q "largest difference 0 .* agrees at 16 of 16 positions" <<<"$parity" || fail "parity: $parity"
  grep -q "within 0.0000% of f32 at every one of 3 steps" <<<"$band" || fail "loss band: $band"
else
  grep -q "agrees at 16 of 16 positions" <<<"$parity" || fail "parity: $parity"
  [ -n "$band" ] || fail "no loss band in: $(cat "$scratch/both.md")"
fi
# The batched decode step (planned and general) against one sequence at a time: a row per count,
# with the three timings.
quick_bench -m "$char" -p 0 -n 0 --gen-prompt 4 --batch-decode 1,3 --batch-decode-steps 2 \
  >"$scratch/batched.md" 2>"$scratch/err" || fail "bench --batch-decode failed: $(cat "$scratch/err")"
[ "$(grep -cE '^\| [13] \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+× \|$' "$scratch/batched.md")" -eq 2 ] ||
  fail "no row per --batch-decode count in: $(cat "$scratch/batched.md")"
grep -q $'\r' "$scratch/err" && fail "--batch-decode's progress in a file holds carriage returns"
grep -qx "batch-decode: 3 sequences, one at a time" "$scratch/err" || fail "no batch-decode progress: $(cat "$scratch/err")"
expect_error "batch past the context" "within the model's context" "$wgpt" bench -m "$char" -p 0 -n 0 \
  --gen-prompt 60 --batch-decode 2

# --profile: a decode step by kernel for greedy decoding and for each sampling mode, then a planned
# batched step of the fewest and of the most sequences.
quick_bench -m "$char" -p 0 -n 4 --gen-prompt 4 -r 1 --sampling top-k=5 --profile \
  --batch-decode 1,3 --batch-decode-steps 2 >"$scratch/profile.md" 2>"$scratch/err" ||
  fail "bench --profile failed: $(cat "$scratch/err")"
for table in "a decode step (greedy)" "a decode step (top-k=5)" "a planned batched step of 1 sequences" \
  "a planned batched step of 3 sequences"; do
  [ "$(grep -cF "GPU time of $table" "$scratch/profile.md")" -eq 1 ] ||
    fail "no table of $table in: $(cat "$scratch/profile.md")"
done
grep -qE '^\| sample_select \| 3 \| [0-9.]+ \|' "$scratch/profile.md" ||
  fail "top-k's decode step without its three sample_select passes: $(cat "$scratch/profile.md")"
# and, for greedy decoding, each decode kernel timed as a chain of dependent dispatches.
[ "$(grep -cF "dependent dispatches in one pass" "$scratch/profile.md")" -eq 1 ] ||
  fail "no kernel chains table in: $(cat "$scratch/profile.md")"
for kernel in decode_embed decode_qkv decode_attention_chunk decode_attention_output decode_mlp_up \
  decode_mlp_down decode_lm_head decode_argmax; do
  grep -qE "^\| $kernel(\.[a-z0-9.]+)? \| [0-9.]+ \|\$" "$scratch/profile.md" ||
    fail "no chain of $kernel in: $(cat "$scratch/profile.md")"
done
expect_error "tables in json" "use them with -o md" "$wgpt" bench -m "$char" -p 0 -n 4 -r 1 --profile -o json
# Without tgN no decode step is profiled (its table, beside no tgN row and at whatever clocks the
# prompt left, read as slow kernels); the prompt's pass still is.
quick_bench -m "$char" -p 8 -n 0 -r 1 --profile >"$scratch/prompt_profile.md" 2>"$scratch/err" ||
  fail "bench -n 0 --profile failed: $(cat "$scratch/err")"
grep -qF "GPU time of one pp8 pass" "$scratch/prompt_profile.md" ||
  fail "no table of the prompt's pass in: $(cat "$scratch/prompt_profile.md")"
grep -qF "a decode step" "$scratch/prompt_profile.md" &&
  fail "a decode step profiled without tgN: $(cat "$scratch/prompt_profile.md")"

expect_error "unknown sampling key" "cannot read 'top-q=3'" "$wgpt" bench -m "$char" -p 0 -n 4 -r 1 --sampling top-q=3
expect_error "bad sampling value" "'x' is not a value for temp" "$wgpt" bench -m "$char" -p 0 -n 4 -r 1 --sampling temp=x
expect_error "invalid sampling" "top-p 0 is not in (0, 1]" "$wgpt" bench -m "$char" -p 0 -n 4 -r 1 --sampling top-p=0
finish
