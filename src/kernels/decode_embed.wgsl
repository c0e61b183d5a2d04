// Decode step, first kernel when the host chose the token: x = wte[token] + wpe[position] for the
// step's one token, both read from the step buffer [position, token]. One thread per element; the
// table is stored as DTYPE (its width a multiple of 8).
//! variants DTYPE f32 f16 bf16 q4
struct Params {
  width: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> wte: array<wte_word>;
@group(0) @binding(3) var<storage, read> wpe: array<f32>;
@group(0) @binding(4) var<storage, read_write> x: array<f32>;

//! include "load8_{DTYPE}.wgsl" for wte

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i < params.width) {
    x[i] = wte_at(step[1] * params.width + i) + wpe[step[0] * params.width + i];
  }
}
