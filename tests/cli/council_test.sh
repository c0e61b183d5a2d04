#!/usr/bin/env bash
# wgpt council from the command line: the four Forge experts on both backends (when the shared
# fixtures are there), and experts that cannot be merged.
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny
tiny=$root/tests/fixtures/hf/gpt2-tiny

# Two copies of one model always form a council (tokenizers and token tables agree).
mkdir -p "$scratch/a" "$scratch/b"
cp "$char"/* "$scratch/a/" && cp "$char"/* "$scratch/b/"
out=$("$wgpt" council -m "$scratch/a" -m "$scratch/b" -p "ROMEO:" -n 6 --seed 3 --backend cpu 2>"$scratch/err")
[[ "$out" == ROMEO:* ]] || fail "the merged text does not start with the prompt: $out"
grep -q "consensus" <<<"$out" || fail "no per-token table: $out"
[ "$(grep -cE '^ +[0-9]+  "' <<<"$out")" = 6 ] || fail "the table does not have 6 rows: $out"
grep -q "experts split on 0 of 6 steps" <<<"$out" || fail "two copies of one model split: $out"
grep -q "generation: 6 tokens" "$scratch/err" || fail "no timings: $(cat "$scratch/err")"
# generate's sampling flags, penalties included, and their checks against the model.
out=$("$wgpt" council -m "$scratch/a" -m "$scratch/b" -p "ROMEO:" -n 6 --seed 3 --top-k 5 \
  --min-p 0.05 --repeat-penalty 1.3 --repeat-last-n 16 --logit-bias 0=-inf --backend cpu 2>/dev/null)
[ "$(grep -cE '^ +[0-9]+  "' <<<"$out")" = 6 ] || fail "a penalised council run has not 6 rows: $out"
expect_usage_error "council top-p 0" "--top-p: '0' is not a number in (0, 1]" \
  "$wgpt" council -m "$scratch/a" -m "$scratch/b" -p "ROMEO:" --top-p 0 --backend cpu
expect_error "council penalty window over the context" \
  "penalty window of 65 tokens is larger than the model's context of 64" \
  "$wgpt" council -m "$scratch/a" -m "$scratch/b" -p "ROMEO:" --repeat-penalty 1.1 --repeat-last-n 65 --backend cpu

manifest=$root/../shared/fixtures/forge-council/manifest.json
if [ -f "$manifest" ]; then
  # The shipped experts stream text on both backends, and greedy decoding agrees between them.
  for backend in cpu gpu; do
    out=$("$wgpt" council --manifest "$manifest" -p "ROMEO:" -n 24 --greedy --backend $backend 2>/dev/null)
    [[ "$out" == ROMEO:* ]] || fail "$backend: no merged text: $out"
    grep -q "Romeo & Juliet" <<<"$out" || fail "$backend: the experts are not named: $out"
    eval "text_$backend=\$(head -c 40 <<<\"\$out\")"
  done
  [ "$text_cpu" = "$text_gpu" ] || fail "greedy council text differs: '$text_cpu' vs '$text_gpu'"
  # --json: one object per step, then a summary.
  json=$("$wgpt" council --manifest "$manifest" -p "JULIET:" -n 5 --beta 4 --top 3 --json 2>/dev/null)
  [ "$(grep -c '"experts":\[{"name":"Gloucester & Menenius","weight"' <<<"$json")" = 5 ] ||
    fail "--json does not give 5 steps with every expert: $json"
  tail -n 1 <<<"$json" | grep -q '"beta":4.0,"summary":{"steps":5' || fail "no summary line: $json"
else
  echo "skipping the shipped experts: ../shared/fixtures is absent (they belong to another project)"
fi

# Experts that cannot be merged are refused, saying why.
expect_error "different tokenizers" "differs from that of" \
  "$wgpt" council -m "$char" -m "$tiny" -p "a" --backend cpu
expect_error "no experts" "name the experts" "$wgpt" council -p "a"
expect_usage_error "bad beta" "--beta: '-1' is not a number in [0, " \
  "$wgpt" council -m "$char" -m "$char" -p "a" --beta -1 --backend cpu
echo '{"experts": []}' >"$scratch/manifest.json"
expect_error "empty manifest" "has no \"experts\" list" "$wgpt" council --manifest "$scratch/manifest.json" -p "a"
finish
