// An independent reader's view of a GGUF file that wgpt wrote: @huggingface/gguf (pinned in
// scripts/setup.sh) parses it, and every tensor name, shape (ggml's order, innermost first) and
// type, and the GPT-2 metadata llama.cpp needs, must be what a GPT-2 of the given shape has —
// computed here from the shape alone, not from wgpt's writer.
//
//   NODE_PATH=.deps/npm node tests/gguf/read_with_huggingface_gguf.cjs FILE.gguf LAYERS EMBD CTX VOCAB MATRIX_TYPE
//
// MATRIX_TYPE is the ggml type the matrices must have (F32, F16, Q8_0, Q4_0); everything else
// must be F32. Exits 0 and prints one line when all agree, else prints each disagreement.
const { gguf, GGMLQuantizationType } = require('@huggingface/gguf');

async function main() {
  const [file, layers, embd, ctx, vocab, matrixType] = process.argv.slice(2);
  const [L, C, T, V] = [layers, embd, ctx, vocab].map(Number);
  const expected = new Map();  // name -> [shape innermost first, type]
  const matrix = GGMLQuantizationType[matrixType];
  const f32 = GGMLQuantizationType.F32;
  expected.set('token_embd.weight', [[C, V], matrix]);
  expected.set('position_embd.weight', [[C, T], f32]);
  expected.set('output_norm.weight', [[C], f32]);
  expected.set('output_norm.bias', [[C], f32]);
  for (let i = 0; i < L; i++) {
    const add = (name, shape, type) => expected.set(`blk.${i}.${name}`, [shape, type]);
    add('attn_norm.weight', [C], f32);
    add('attn_norm.bias', [C], f32);
    add('attn_qkv.weight', [C, 3 * C], matrix);
    add('attn_qkv.bias', [3 * C], f32);
    add('attn_output.weight', [C, C], matrix);
    add('attn_output.bias', [C], f32);
    add('ffn_norm.weight', [C], f32);
    add('ffn_norm.bias', [C], f32);
    add('ffn_up.weight', [C, 4 * C], matrix);
    add('ffn_up.bias', [4 * C], f32);
    add('ffn_down.weight', [4 * C, C], matrix);
    add('ffn_down.bias', [C], f32);
  }

  const { metadata, tensorInfos } = await gguf(file, { allowLocalFile: true });
  const problems = [];
  const seen = new Set();
  for (const info of tensorInfos) {
    seen.add(info.name);
    const want = expected.get(info.name);
    if (!want) {
      problems.push(`unexpected tensor ${info.name}`);
      continue;
    }
    const shape = info.shape.map(Number);
    if (JSON.stringify(shape) !== JSON.stringify(want[0])) {
      problems.push(`${info.name}: shape [${shape}], expected [${want[0]}]`);
    }
    if (info.dtype !== want[1]) {
      problems.push(`${info.name}: type ${GGMLQuantizationType[info.dtype]}, expected ` +
                    GGMLQuantizationType[want[1]]);
    }
  }
  for (const name of expected.keys()) if (!seen.has(name)) problems.push(`missing tensor ${name}`);
  const wantMetadata = {
    'general.architecture': 'gpt2',
    'gpt2.block_count': L,
    'gpt2.embedding_length': C,
    'gpt2.context_length': T,
    'gpt2.feed_forward_length': 4 * C,
    'tokenizer.ggml.model': 'gpt2',
    'tokenizer.ggml.pre': 'gpt-2',
  };
  for (const [key, value] of Object.entries(wantMetadata)) {
    if (metadata[key] !== value) problems.push(`metadata ${key} = ${metadata[key]}, expected ${value}`);
  }
  if (metadata['tokenizer.ggml.tokens']?.length !== V) {
    problems.push(`tokenizer.ggml.tokens has ${metadata['tokenizer.ggml.tokens']?.length} tokens, expected ${V}`);
  }
  if (problems.length) {
    console.log(problems.join('\n'));
    process.exit(1);
  }
  console.log(`@huggingface/gguf read ${tensorInfos.length} tensors and ` +
              `${Object.keys(metadata).length} metadata entries as expected`);
}

main().catch((error) => {
  console.log(`@huggingface/gguf could not read the file: ${error.message}`);
  process.exit(1);
});
