// Element i of OPERAND, IEEE half floats packed two per word (element 2w in bits 0–15 of word w).
// The includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = u32;

fn OPERAND_at(i: u32) -> f32 {
  return unpack2x16float(OPERAND[i / 2u])[i % 2u];
}
