// Element i of OPERAND, q4: blocks of 64 elements in ten words — eight of 4-bit codes (element j
// of a block in bits 4·(j % 8) of word j / 8), then the block's scale and minimum as f32 bits;
// element = code · scale + min. The includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = u32;

fn OPERAND_at(i: u32) -> f32 {
  let block = i / 64u * 10u;
  let j = i % 64u;
  let code = (OPERAND[block + j / 8u] >> (4u * (j % 8u))) & 15u;
  return f32(code) * bitcast<f32>(OPERAND[block + 8u]) + bitcast<f32>(OPERAND[block + 9u]);
}
