// Element i of OPERAND, bfloat16 packed two per word (element 2w in bits 0–15 of word w): the top
// half of an f32. The includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = u32;

fn OPERAND_at(i: u32) -> f32 {
  let word = OPERAND[i / 2u];
  return bitcast<f32>(select(word << 16u, word & 0xffff0000u, i % 2u == 1u));
}

// Element (row, col) of a [k, n] OPERAND in column strips (see load1_f32.wgsl).
fn OPERAND_strip_at(row: u32, col: u32, k: u32, n: u32) -> f32 {
  return OPERAND_at(((col / 8u) * k + row) * 8u + col % 8u);
}
