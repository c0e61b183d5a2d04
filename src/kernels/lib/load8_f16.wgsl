// OPERAND read eight elements at a time (see load8_f32.wgsl), IEEE half floats: a word is four
// u32s, each two halves (element 2w in bits 0–15 of u32 w).
alias OPERAND_word = vec4<u32>;

fn OPERAND_at8(i8: u32) -> mat2x4<f32> {
  let w = OPERAND[i8];
  return mat2x4<f32>(vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y)),
                     vec4<f32>(unpack2x16float(w.z), unpack2x16float(w.w)));
}

fn OPERAND_at4(i4: u32) -> vec4<f32> {
  let w = OPERAND[i4 / 2u];
  let pair = select(w.xy, w.zw, i4 % 2u == 1u);
  return vec4<f32>(unpack2x16float(pair.x), unpack2x16float(pair.y));
}

fn OPERAND_at(i: u32) -> f32 {
  return unpack2x16float(OPERAND[i / 8u][(i / 2u) % 4u])[i % 2u];
}
