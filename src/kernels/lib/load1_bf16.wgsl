// Element i of OPERAND, bfloat16 packed two per word (element 2w in bits 0–15 of word w): the top
// half of an f32. The includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = u32;

fn OPERAND_at(i: u32) -> f32 {
  let word = OPERAND[i / 2u];
  return bitcast<f32>(select(word << 16u, word & 0xffff0000u, i % 2u == 1u));
}
