#!/usr/bin/env bash
# capture --names tl writes TransformerLens hook names, the ones `wgpt trace` uses: every tensor of
# such a capture is in the trace's prefill step under the same name, with the same shape and values.
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny
run=(-m "$char" -p "ROMEO:" --backend cpu)

"$wgpt" capture "${run[@]}" -o "$scratch/hf.safetensors" 2>/dev/null || fail "capture failed"
"$wgpt" capture "${run[@]}" --names hf -o "$scratch/hf2.safetensors" 2>/dev/null || fail "capture --names hf failed"
cmp -s "$scratch/hf.safetensors" "$scratch/hf2.safetensors" || fail "--names hf is not the default"
"$wgpt" capture --help | grep -q "hf (the default" || fail "capture --help does not name the default"
"$wgpt" capture "${run[@]}" --names tl -o "$scratch/tl.safetensors" 2>/dev/null || fail "capture --names tl failed"
"$wgpt" trace "${run[@]}" -n 1 --greedy --detail-layers 2 --format safetensors -o "$scratch/trace.safetensors" \
  >/dev/null 2>&1 || fail "trace failed"
expect_usage_error "an unknown naming" "--names" "$wgpt" capture "${run[@]}" --names torch -o "$scratch/x.safetensors"

node -e "
  const fs = require('fs');
  const assert = require('assert');
  function read(path) {
    const bytes = fs.readFileSync(path);
    const size = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + size).toString());
    const tensors = {};
    for (const [name, t] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      const [begin, end] = t.data_offsets;
      const data = bytes.subarray(8 + size + begin, 8 + size + end);
      tensors[name] = {shape: t.shape, dtype: t.dtype,
                       values: t.dtype === 'F32' ? Array.from(new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length))) : null};
    }
    return tensors;
  }
  const hf = read(process.argv[1]), tl = read(process.argv[2]), trace = read(process.argv[3]);
  const hfNames = Object.keys(hf).sort(), tlNames = Object.keys(tl).sort();
  assert.deepStrictEqual(hfNames, ['attn.0', 'attn.1', 'hidden.0', 'hidden.1', 'hidden.2', 'input_ids', 'logits']);
  assert.deepStrictEqual(tlNames, ['blocks.0.attn.hook_pattern', 'blocks.0.hook_resid_pre', 'blocks.1.attn.hook_pattern',
                                   'blocks.1.hook_resid_pre', 'input_ids', 'ln_final.hook_normalized', 'logits']);
  // The same tensors under other names.
  const renamed = {'attn.0': 'blocks.0.attn.hook_pattern', 'attn.1': 'blocks.1.attn.hook_pattern',
                   'hidden.0': 'blocks.0.hook_resid_pre', 'hidden.1': 'blocks.1.hook_resid_pre',
                   'hidden.2': 'ln_final.hook_normalized', 'input_ids': 'input_ids', 'logits': 'logits'};
  for (const [from, to] of Object.entries(renamed)) assert.deepStrictEqual(tl[to].shape, hf[from].shape, to);
  // Every TL name but input_ids is in the trace's prefill step; the trace's logits are the last position's.
  const close = (a, b, what) => {
    assert.strictEqual(a.length, b.length, what);
    a.forEach((x, i) => assert(Math.abs(x - b[i]) <= 1e-4 * (1 + Math.abs(b[i])), what + '[' + i + ']: ' + x + ' vs ' + b[i]));
  };
  for (const name of tlNames.filter(n => n !== 'input_ids' && n !== 'logits')) {
    const traced = trace['step.0.' + name];
    assert(traced, 'the trace has no step.0.' + name);
    assert.deepStrictEqual(traced.shape, tl[name].shape, name);
    close(tl[name].values, traced.values, name);
  }
  // Block 0's output is block 1's input.
  close(tl['blocks.1.hook_resid_pre'].values, trace['step.0.blocks.0.hook_resid_post'].values, 'resid_post');
  const [t, vocab] = tl.logits.shape;
  close(tl.logits.values.slice((t - 1) * vocab), trace['step.0.logits'].values, 'logits');
" "$scratch/hf.safetensors" "$scratch/tl.safetensors" "$scratch/trace.safetensors" ||
  fail "capture --names tl does not agree with trace"

finish
