// OPERAND read eight elements at a time (see load8_f32.wgsl), q4: a block of 64 elements is five
// vec2<u32> words — four holding the eight u32s of 4-bit codes (element j of the block in bits
// 4·(j % 8) of u32 j / 8), then (scale, minimum) as f32 bits; element = code · scale + min. Eight
// elements are one u32 of codes and the block's (scale, min), which its 8 neighbours share.
alias OPERAND_word = vec2<u32>;

// One u32 of codes (8 elements) of block `block` → their values.
fn OPERAND_decode(codes: u32, block: u32) -> mat2x4<f32> {
  return OPERAND_dequantize(codes, bitcast<vec2<f32>>(OPERAND[block * 5u + 4u]));
}

// One u32 of codes (8 elements) → their values, given their block's (scale, minimum).
fn OPERAND_dequantize(codes: u32, scale_min: vec2<f32>) -> mat2x4<f32> {
  let lo = vec4<f32>(vec4<u32>(codes, codes >> 4u, codes >> 8u, codes >> 12u) & vec4<u32>(15u));
  let hi = vec4<f32>(vec4<u32>(codes >> 16u, codes >> 20u, codes >> 24u, codes >> 28u) &
                     vec4<u32>(15u));
  return mat2x4<f32>(lo * scale_min.x + scale_min.y, hi * scale_min.x + scale_min.y);
}

fn OPERAND_at8(i8: u32) -> mat2x4<f32> {
  let block = i8 / 8u;
  let word = i8 % 8u;
  return OPERAND_decode(OPERAND[block * 5u + word / 2u][word % 2u], block);
}

fn OPERAND_at4(i4: u32) -> vec4<f32> {
  return OPERAND_at8(i4 / 2u)[i4 % 2u];
}

fn OPERAND_at(i: u32) -> f32 {
  return OPERAND_at8(i / 8u)[(i / 4u) % 2u][i % 4u];
}

// Elements (row, 8·column8..8·column8 + 7) of a [k, 8·n8] OPERAND, in column strips (wgpt::Layout:
// the code words in strips of 8 columns, each strip's k rows one after another, then the blocks'
// (scale, minimum) pairs by block column and row) when `strips`, row-major otherwise.
fn OPERAND_matrix_at8(row: u32, column8: u32, k: u32, n8: u32, strips: bool) -> mat2x4<f32> {
  let i8 = row * n8 + column8;
  let code_word = select((i8 / 8u) * 10u + i8 % 8u, column8 * k + row, strips);  // in u32s
  let pair = select((i8 / 8u) * 5u + 4u, k * n8 / 2u + (column8 / 8u) * k + row, strips);
  return OPERAND_dequantize(OPERAND[code_word / 2u][code_word % 2u],
                            bitcast<vec2<f32>>(OPERAND[pair]));
}

// Elements (row, col..col + 3) of a [k, n] OPERAND in column strips; col is a multiple of 4.
fn OPERAND_strip_at4(row: u32, col: u32, k: u32, n: u32) -> vec4<f32> {
  return OPERAND_matrix_at8(row, col / 8u, k, n / 8u, true)[(col / 4u) % 2u];
}
