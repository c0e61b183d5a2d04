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

// Elements (row, col..col + 3) of a [k, n] OPERAND in column strips (wgpt::Layout: strips of 8
// columns, each strip's k rows one after another); col is a multiple of 4.
fn OPERAND_strip_at4(row: u32, col: u32, k: u32, n: u32) -> vec4<f32> {
  return OPERAND_at4(((col / 8u) * k + row) * 2u + (col / 4u) % 2u);
}

// Elements (row, 8·column8..8·column8 + 7) of a [k, 8·n8] OPERAND, in column strips when `strips`
// and row-major otherwise.
fn OPERAND_matrix_at8(row: u32, column8: u32, k: u32, n8: u32, strips: bool) -> mat2x4<f32> {
  return OPERAND_at8(select(row * n8 + column8, column8 * k + row, strips));
}
