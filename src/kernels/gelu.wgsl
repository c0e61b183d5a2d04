// y = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), GPT-2's "gelu_new", elementwise.
//! include "gelu_tanh.wgsl"
struct Params {
  n: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  y[i] = gelu_tanh(x[i]);
}
