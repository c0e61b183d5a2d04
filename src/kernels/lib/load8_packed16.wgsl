// OPERAND read eight elements at a time (see load8_f32.wgsl), 16-bit elements packed two per u32:
// a word is four u32s, element 2w in bits 0–15 of u32 w. The part load8_f16.wgsl and
// load8_bf16.wgsl share; they differ only in OPERAND_unpack2(w: u32) -> vec2<f32>, a u32's two
// elements as f32s, which the includer defines.
alias OPERAND_word = vec4<u32>;

fn OPERAND_at8(i8: u32) -> mat2x4<f32> {
  let w = OPERAND[i8];
  return mat2x4<f32>(vec4<f32>(OPERAND_unpack2(w.x), OPERAND_unpack2(w.y)),
                     vec4<f32>(OPERAND_unpack2(w.z), OPERAND_unpack2(w.w)));
}

fn OPERAND_at4(i4: u32) -> vec4<f32> {
  let w = OPERAND[i4 / 2u];
  let pair = select(w.xy, w.zw, i4 % 2u == 1u);
  return vec4<f32>(OPERAND_unpack2(pair.x), OPERAND_unpack2(pair.y));
}

fn OPERAND_at(i: u32) -> f32 {
  return OPERAND_unpack2(OPERAND[i / 8u][(i / 2u) % 4u])[i % 2u];
}

// Elements (row, col..col + 3) of a [k, n] OPERAND in column strips (see load8_f32.wgsl).
fn OPERAND_strip_at4(row: u32, col: u32, k: u32, n: u32) -> vec4<f32> {
  return OPERAND_at4(((col / 8u) * k + row) * 2u + (col / 4u) % 2u);
}

// Elements (row, 8·column8..8·column8 + 7) of a [k, 8·n8] OPERAND, in column strips when `strips`
// and row-major otherwise.
fn OPERAND_matrix_at8(row: u32, column8: u32, k: u32, n8: u32, strips: bool) -> mat2x4<f32> {
  return OPERAND_at8(select(row * n8 + column8, column8 * k + row, strips));
}
