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
