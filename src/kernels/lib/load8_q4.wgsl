// OPERAND read eight elements at a time (see load8_f32.wgsl), q4: a block of 64 elements is five
// vec2<u32> words — four holding the eight u32s of 4-bit codes (element j of the block in bits
// 4·(j % 8) of u32 j / 8), then (scale, minimum) as f32 bits; element = code · scale + min. Eight
// elements are one u32 of codes and the block's (scale, min), which its 8 neighbours share.
alias OPERAND_word = vec2<u32>;

// One u32 of codes (8 elements) of block `block` → their values.
fn OPERAND_decode(codes: u32, block: u32) -> mat2x4<f32> {
  let scale_min = bitcast<vec2<f32>>(OPERAND[block * 5u + 4u]);
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
