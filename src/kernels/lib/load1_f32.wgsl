// Element i of OPERAND as f32, one element per word: the f32 form of the load1_* family, which
// reads a weight operand stored as f32, f16, bf16 or q4 (wgpt::DType) one element at a time. The
// includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = f32;

fn OPERAND_at(i: u32) -> f32 {
  return OPERAND[i];
}

// Element (row, col) of a [k, n] OPERAND in column strips (wgpt::Layout): strips of 8 columns,
// each strip's k rows one after another.
fn OPERAND_strip_at(row: u32, col: u32, k: u32, n: u32) -> f32 {
  return OPERAND_at(((col / 8u) * k + row) * 8u + col % 8u);
}
