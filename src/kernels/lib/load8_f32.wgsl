// OPERAND read eight elements at a time: OPERAND_at8(i8) is elements 8·i8 .. 8·i8 + 7 as two
// vec4s (columns 0–3, 4–7), OPERAND_at4(i4) elements 4·i4 .. 4·i4 + 3 and OPERAND_at(i) one. The
// f32 form of the load8_* family (f32, f16, bf16, q4: the layouts of wgpt::DType), whose words
// hold 8 (f32: 4), elements so that a load moves 16 bytes. The operand's element count is a
// multiple of 8. The includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = vec4<f32>;

fn OPERAND_at8(i8: u32) -> mat2x4<f32> {
  return mat2x4<f32>(OPERAND[2u * i8], OPERAND[2u * i8 + 1u]);
}

fn OPERAND_at4(i4: u32) -> vec4<f32> {
  return OPERAND[i4];
}

fn OPERAND_at(i: u32) -> f32 {
  return OPERAND[i / 4u][i % 4u];
}
