#!/usr/bin/env bash
# wgpt bench: a row per sampling mode and one for scoring, as JSON; bad specs.
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny

"$wgpt" bench -m "$char" -p 8 -n 4 --gen-prompt 4 -r 1 --sampling top-k=5 \
  --sampling "top-p=0.9,repeat-penalty=1.2" --score 100 -o json >"$scratch/bench.json" 2>"$scratch/err" ||
  fail "bench failed: $(cat "$scratch/err")"
node -e "
  const rows = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
  const tests = rows.map((r) => r.test);
  const want = ['pp8', 'tg4', 'tg4 top-k=5', 'tg4 top-p=0.9,repeat-penalty=1.2', 'score100 top 5'];
  if (JSON.stringify(tests) !== JSON.stringify(want)) throw new Error(JSON.stringify(tests));
  for (const r of rows) if (!(r.tok_per_s_mean > 0)) throw new Error(r.test + ': ' + r.tok_per_s_mean);
  const sampled = rows.find((r) => r.test === 'tg4 top-k=5');
  if (sampled.submits_per_token !== 1 || sampled.buffers_created_per_token !== 0)
    throw new Error('a sampled step: ' + JSON.stringify(sampled));
" "$scratch/bench.json" || fail "bench --sampling/--score rows are not as documented"
grep -q "score100 top 5: repetition 1/1" "$scratch/err" || fail "no scoring progress: $(cat "$scratch/err")"

expect_error "unknown sampling key" "cannot read 'top-q=3'" "$wgpt" bench -m "$char" -p 0 -n 4 -r 1 --sampling top-q=3
expect_error "bad sampling value" "'x' is not a value for temp" "$wgpt" bench -m "$char" -p 0 -n 4 -r 1 --sampling temp=x
expect_error "invalid sampling" "top-p 0 is not in (0, 1]" "$wgpt" bench -m "$char" -p 0 -n 4 -r 1 --sampling top-p=0
finish
