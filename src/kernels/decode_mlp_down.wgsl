// Decode step: the MLP's second layer with its bias, added into the residual stream in place:
// x += h · W + b. Each column of x is read and written by one thread only, so updating in place is
// safe.
struct Params {
  k: u32,
  n4: u32,
  tx: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> h: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> x: array<vec4<f32>>;

//! include "decode_gemv.wgsl"

fn input_at(row: u32) -> f32 {
  return h[row];
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
  let column4 = group.x * params.tx + local % params.tx;
  let sums = gemv_columns(local, column4, params.k, params.n4, params.tx);
  if (local < params.tx && column4 < params.n4) {
    x[column4] = x[column4] + sums + bias[column4];
  }
}
