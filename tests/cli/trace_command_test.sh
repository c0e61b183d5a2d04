#!/usr/bin/env bash
# wgpt trace from the command line: NDJSON and safetensors contents, the same tokens as generate,
# CPU and GPU agreeing, clamping notes, and bad input.
source "$(dirname "$0")/cli_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
char=$root/tests/fixtures/hf/char-tiny
prompt="Hello, my dog is cute"

# check_json FILE SCRIPT: runs SCRIPT under node with `records` = the NDJSON lines of FILE parsed;
# the script throws to fail.
check_json() {
  node -e "
    const records = require('fs').readFileSync(process.argv[1], 'utf8').trim().split('\n').map(JSON.parse);
    $2" "$1" 2>&1 || fail "$3"
}

# NDJSON: one record per step, each layer's newest attention row per head, the top-n.
"$wgpt" trace -m "$tiny" -p "$prompt" -n 6 --top 4 --seed 9 --ignore-eos -o "$scratch/cpu.ndjson" \
  --backend cpu >"$scratch/text" 2>"$scratch/err" || fail "trace failed: $(cat "$scratch/err")"
grep -q "wrote 6 step records" "$scratch/err" || fail "no 'wrote 6 step records': $(cat "$scratch/err")"
grep -q "ms/token with the probe on" "$scratch/err" || fail "no timings: $(cat "$scratch/err")"
[[ "$(cat "$scratch/text")" == "$prompt"* ]] || fail "the text is not streamed: $(cat "$scratch/text")"
check_json "$scratch/cpu.ndjson" "
  const assert = require('assert');
  assert.strictEqual(records.length, 6);
  assert.strictEqual(records[0].prompt.length, 6);
  assert.deepStrictEqual(records[0].prompt.map(t => t.text).join(''), '$prompt');
  records.forEach((r, step) => {
    assert.deepStrictEqual(Object.keys(r), step ? ['step', 'token', 'text', 'q_len', 'kv_len', 'attention', 'top']
                                                : ['step', 'token', 'text', 'q_len', 'kv_len', 'prompt', 'attention', 'top']);
    assert.strictEqual(r.step, step);
    assert.strictEqual(r.kv_len, 6 + step);
    assert.strictEqual(r.q_len, step ? 1 : 6);
    assert.strictEqual(r.attention.length, 2);            // layers
    for (const heads of r.attention) {
      assert.strictEqual(heads.length, 4);                 // heads
      for (const row of heads) {
        assert.strictEqual(row.length, r.kv_len);
        assert(Math.abs(row.reduce((a, b) => a + b) - 1) < 1e-5, 'a row does not sum to 1');
      }
    }
    assert.strictEqual(r.top.length, 4);
    assert(r.top[0].p >= r.top[3].p);
  });
" "the NDJSON records are not as documented"

# The probe does not change the tokens: generate with the same seed gives the same ids.
generated=$("$wgpt" generate -m "$tiny" -p "$prompt" -n 6 --seed 9 --ignore-eos --json --backend cpu 2>/dev/null)
check_json "$scratch/cpu.ndjson" "
  const ids = $(grep -o '"ids":\[[0-9,]*\]' <<<"$generated" | cut -d: -f2);
  require('assert').deepStrictEqual(records.map(r => r.token), ids);
" "trace and generate chose different tokens"

# The GPU gives the CPU's tokens and attention.
"$wgpt" trace -m "$tiny" -p "$prompt" -n 6 --top 4 --seed 9 --ignore-eos -o "$scratch/gpu.ndjson" \
  --backend gpu >/dev/null 2>&1 || fail "trace on the GPU failed"
node -e "
  const read = (f) => require('fs').readFileSync(f, 'utf8').trim().split('\n').map(JSON.parse);
  const [cpu, gpu] = [read(process.argv[1]), read(process.argv[2])];
  require('assert').deepStrictEqual(gpu.map(r => r.token), cpu.map(r => r.token));
  cpu.forEach((r, s) => r.attention.flat(2).forEach((p, i) => {
    if (Math.abs(p - gpu[s].attention.flat(2)[i]) > 1e-4) throw new Error('step ' + s + ' differs');
  }));
" "$scratch/cpu.ndjson" "$scratch/gpu.ndjson" || fail "CPU and GPU traces differ"

# safetensors: every capture of every step under step.S.<name>; detail clamped with a note.
"$wgpt" trace -m "$char" -p "ROMEO:" -n 3 --detail-layers 5 --top 100 --format safetensors \
  -o "$scratch/trace.safetensors" --backend cpu >/dev/null 2>"$scratch/err" || fail "safetensors trace failed"
grep -q "note: --detail-layers 5 is more than the model's 2 layers: using 2" "$scratch/err" || fail "no detail note"
grep -q "note: --top 100 is more than the vocabulary of 65: using 65" "$scratch/err" || fail "no top note"
node -e "
  const bytes = require('fs').readFileSync(process.argv[1]);
  const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString());
  const assert = require('assert');
  for (let s = 0; s < 3; ++s) {
    for (const name of ['blocks.0.attn.hook_pattern', 'blocks.1.attn.hook_pattern', 'blocks.0.hook_resid_pre',
                        'blocks.1.attn.hook_q', 'blocks.1.attn.hook_attn_scores', 'blocks.1.mlp.hook_post',
                        'blocks.1.hook_resid_post', 'ln_final.hook_normalized', 'logits', 'token', 'top_ids', 'top_probs']) {
      assert(header['step.' + s + '.' + name], 'missing step.' + s + '.' + name);
    }
  }
  assert.deepStrictEqual(header['step.0.blocks.0.attn.hook_pattern'].shape, [2, 6, 6]);
  assert.deepStrictEqual(header['step.2.blocks.1.attn.hook_attn_scores'].shape, [2, 1, 8]);
  assert.deepStrictEqual(header['step.2.top_ids'].shape, [65]);
  assert.strictEqual(header.__metadata__.prompt, 'ROMEO:');
" "$scratch/trace.safetensors" || fail "the safetensors trace is not as documented"

# Bad input: clear errors, exit status 1, never a crash.
expect_error "no output" "nowhere to write the trace" "$wgpt" trace -m "$char" -p "ROMEO:" -n 2
expect_error "empty prompt" "prompt is empty" "$wgpt" trace -m "$char" -p "" -o "$scratch/x.ndjson"
expect_error "unknown character" "is not in the vocabulary" "$wgpt" trace -m "$char" -p "ROMEO é" -o "$scratch/x.ndjson"
expect_error "prompt over n_ctx" "more than the model's context of 64" \
  "$wgpt" trace -m "$char" -p "$(printf 'a%.0s' {1..70})" -o "$scratch/x.ndjson"
expect_error "unwritable output" "cannot write" "$wgpt" trace -m "$char" -p "ROMEO:" -o "$scratch/none/x.ndjson"
expect_error "unwritable page" "cannot write" "$wgpt" trace -m "$char" -p "ROMEO:" --html "$scratch/none/x.html"
expect_usage_error "bad temperature" "--temp: '-0.5' is not a number in [0, inf]" \
  "$wgpt" trace -m "$char" -p "ROMEO:" --temp -0.5 -o "$scratch/x.ndjson"

# A failing run never touches an existing output: the trace is written beside it and only renamed
# over it at the end (an invalid option used to truncate it first).
for output in "-o $scratch/kept.ndjson" "--format safetensors -o $scratch/kept.safetensors" \
              "--html $scratch/kept.html"; do
  target=${output##* }
  echo "precious" >"$target"
  for bad in "--temp -0.5" "--top-p 2" "-n -1" "--top-k -1"; do
    # shellcheck disable=SC2086
    "$wgpt" trace -m "$char" -p "ROMEO:" -n 2 --backend cpu $bad $output >/dev/null 2>&1
    [ "$(cat "$target")" = "precious" ] || fail "trace $bad $output changed the existing output"
  done
  # shellcheck disable=SC2086
  "$wgpt" trace -m "$char" -p "ROMEO é" -n 2 --backend cpu $output >/dev/null 2>&1
  [ "$(cat "$target")" = "precious" ] || fail "a prompt outside the vocabulary changed $target"
  compgen -G "$scratch/kept.*.tmp.*" >/dev/null && fail "a failed trace left a temporary file"
done
finish
