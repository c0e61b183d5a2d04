// OPERAND read eight elements at a time (see load8_f32.wgsl), bfloat16: the words of
// load8_packed16.wgsl, each bfloat16 the top half of an f32.
//! include "load8_packed16.wgsl" for OPERAND

fn OPERAND_unpack2(w: u32) -> vec2<f32> {
  return vec2<f32>(bitcast<f32>(w << 16u), bitcast<f32>(w & 0xffff0000u));
}
