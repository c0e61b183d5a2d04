#!/usr/bin/env bash
# wgpt score: surprisal per token as JSON, as a table, coloured in a terminal; sliding windows for
# long texts; bad input.
source "$(dirname "$0")/cli_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
char=$root/tests/fixtures/hf/char-tiny
text="Hello, my dog is cute and it likes to play in the park."

# --json: every token, the first without bits, k alternatives each; the mean and perplexity.
"$wgpt" score -m "$tiny" --text "$text" --top-k 3 --json --backend cpu >"$scratch/score.json" 2>"$scratch/err" ||
  fail "score --json failed: $(cat "$scratch/err")"
node -e "
  const assert = require('assert');
  const out = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
  assert.strictEqual(out.tokens.length, 15);
  assert.strictEqual(out.tokens.map(t => t.text).join(''), process.argv[2]);
  assert.strictEqual(out.tokens[0].bits, null);
  let sum = 0;
  for (const t of out.tokens.slice(1)) {
    assert(t.bits > 0, 'bits ' + t.bits);
    assert.strictEqual(t.top.length, 3);
    sum += t.bits;
  }
  assert(Math.abs(out.mean_bits - sum / 14) < 1e-9);
  assert(Math.abs(out.perplexity - 2 ** out.mean_bits) < 1e-6);
  assert(Math.abs(out.mean_nats - out.mean_bits * Math.LN2) < 1e-9);
  assert.strictEqual(out.windows, 1);
" "$scratch/score.json" "$text" || fail "score --json is not as documented"

# The GPU agrees with the CPU.
"$wgpt" score -m "$tiny" --text "$text" --json --backend gpu >"$scratch/gpu.json" 2>/dev/null || fail "score on the GPU failed"
node -e "
  const read = (f) => JSON.parse(require('fs').readFileSync(f, 'utf8'));
  const [cpu, gpu] = [read(process.argv[1]), read(process.argv[2])];
  if (Math.abs(cpu.mean_bits - gpu.mean_bits) > 1e-3) throw new Error(cpu.mean_bits + ' vs ' + gpu.mean_bits);
" "$scratch/score.json" "$scratch/gpu.json" || fail "CPU and GPU scores differ"

# Not a terminal: a table and the summary. A terminal: coloured text.
printf '%s' "$text" >"$scratch/text.txt"
out=$("$wgpt" score -m "$tiny" --file "$scratch/text.txt" --backend cpu 2>/dev/null)
head -1 <<<"$out" | grep -q $'^position\tbits\ttoken\talternatives$' || fail "no table header: $out"
grep -q $'^0\t-\t"Hello"' <<<"$out" || fail "the first token's row: $out"
grep -qE '^15 tokens, 14 scored: mean [0-9.]+ bits/token \([0-9.]+ nats\), perplexity [0-9.]+ \(1 window\)$' <<<"$out" ||
  fail "no summary line: $out"
coloured=$(script -qec "'$wgpt' score -m '$tiny' --text 'Hello world' --backend cpu" /dev/null 2>/dev/null)
grep -q $'\033\[38;5;' <<<"$coloured" || fail "no colours in a terminal: $coloured"
# 🦙 is split over three BPE tokens: colours go around whole characters only.
coloured=$(script -qec "'$wgpt' score -m '$tiny' --text 'Hi 🦙 there' --backend cpu" /dev/null 2>/dev/null)
grep -q '🦙' <<<"$coloured" || fail "the emoji was not printed whole: $coloured"
iconv -f UTF-8 -t UTF-8 <<<"$coloured" >/dev/null 2>&1 || fail "coloured output is not valid UTF-8"

# Longer than the context (64): HF's sliding windows, with progress.
long=$(printf 'ROMEO: But soft, what light through yonder window breaks? %.0s' {1..3})
"$wgpt" score -m "$char" --text "$long" --stride 16 --backend cpu >"$scratch/long" 2>"$scratch/err" ||
  fail "scoring a long text failed"
grep -qE 'windows of 64 tokens, stride 16\)$' "$scratch/long" || fail "no window summary: $(tail -1 "$scratch/long")"
windows=$(grep -oE '[0-9]+ windows of 64' "$scratch/long" | cut -d' ' -f1)
[ "${windows:-0}" -gt 1 ] || fail "a text over the context took ${windows:-no} windows"
grep -q "scoring: window $windows of $windows" "$scratch/err" || fail "no progress: $(cat "$scratch/err")"

# Clamping and bad input.
"$wgpt" score -m "$char" --text "ROMEO" --top-k 500 --backend cpu 2>&1 >/dev/null |
  grep -q "note: --top-k 500 is more than the vocabulary of 65: using 65" || fail "no top-k note"
expect_error "nothing to score" "nothing to score" "$wgpt" score -m "$char"
expect_error "empty text" "the text is empty" "$wgpt" score -m "$char" --text ""
expect_error "one token" "at least two tokens" "$wgpt" score -m "$char" --text "R"
expect_error "unknown character" "is not in the vocabulary" "$wgpt" score -m "$char" --text "ROMEO é"
expect_error "missing file" "cannot read $scratch/none.txt: no such file" "$wgpt" score -m "$char" --file "$scratch/none.txt"
expect_error "a directory" "not a regular file" "$wgpt" score -m "$char" --file "$scratch"
expect_error "invalid UTF-8" "not valid UTF-8" "$wgpt" score -m "$tiny" --text $'ab\xff'
finish
