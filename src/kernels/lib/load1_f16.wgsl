// Element i of OPERAND, IEEE half floats packed two per word (element 2w in bits 0–15 of word w).
// The includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = u32;

fn OPERAND_at(i: u32) -> f32 {
  return unpack2x16float(OPERAND[i / 2u])[i % 2u];
}

// Element (row, col) of a [k, n] OPERAND in column strips (see load1_f32.wgsl).
fn OPERAND_strip_at(row: u32, col: u32, k: u32, n: u32) -> f32 {
  return OPERAND_at(((col / 8u) * k + row) * 8u + col % 8u);
}
