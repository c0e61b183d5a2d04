// OPERAND read eight elements at a time (see load8_f32.wgsl), bfloat16: a word is four u32s, each
// two bfloat16s (element 2w in bits 0–15 of u32 w), the top halves of f32s.
alias OPERAND_word = vec4<u32>;

fn OPERAND_bf16x2(w: u32) -> vec2<f32> {
  return vec2<f32>(bitcast<f32>(w << 16u), bitcast<f32>(w & 0xffff0000u));
}

fn OPERAND_at8(i8: u32) -> mat2x4<f32> {
  let w = OPERAND[i8];
  return mat2x4<f32>(vec4<f32>(OPERAND_bf16x2(w.x), OPERAND_bf16x2(w.y)),
                     vec4<f32>(OPERAND_bf16x2(w.z), OPERAND_bf16x2(w.w)));
}

fn OPERAND_at4(i4: u32) -> vec4<f32> {
  let w = OPERAND[i4 / 2u];
  let pair = select(w.xy, w.zw, i4 % 2u == 1u);
  return vec4<f32>(OPERAND_bf16x2(pair.x), OPERAND_bf16x2(pair.y));
}

fn OPERAND_at(i: u32) -> f32 {
  return OPERAND_bf16x2(OPERAND[i / 8u][(i / 2u) % 4u])[i % 2u];
}
