// Element i of OPERAND as f32, one element per word: the f32 form of the load1_* family, which
// reads a weight operand stored as f32, f16, bf16 or q4 (wgpt::DType) one element at a time. The
// includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = f32;

fn OPERAND_at(i: u32) -> f32 {
  return OPERAND[i];
}
