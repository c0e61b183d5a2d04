// OPERAND read eight elements at a time (see load8_f32.wgsl), IEEE half floats: the words of
// load8_packed16.wgsl, each half the low or high 16 bits of a u32.
//! include "load8_packed16.wgsl" for OPERAND

fn OPERAND_unpack2(w: u32) -> vec2<f32> {
  return unpack2x16float(w);
}
