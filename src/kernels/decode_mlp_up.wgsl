// Decode step: LayerNorm 2, the MLP's first layer with its bias, and GELU (tanh form):
// h = gelu(LN(x) · W + b).
struct Params {
  k: u32,
  n4: u32,
  tx: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> ln_params: array<f32>;
@group(0) @binding(3) var<storage, read> weight: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> h: array<vec4<f32>>;

//! include "decode_layernorm.wgsl"
//! include "decode_gemv.wgsl"

fn input_at(row: u32) -> f32 {
  return ln_normalized(row, params.k);
}

fn gelu(v: vec4<f32>) -> vec4<f32> {
  // Clamped: some backends build tanh from exp and would give inf/inf for large arguments.
  let inner = clamp(0.7978845608028654 * (v + 0.044715 * v * v * v), vec4<f32>(-10.0), vec4<f32>(10.0));
  return 0.5 * v * (1.0 + tanh(inner));
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
  ln_statistics(local, params.k, params.eps);
  let column4 = group.x * params.tx + local % params.tx;
  let sums = gemv_columns(local, column4, params.k, params.n4, params.tx);
  if (local < params.tx && column4 < params.n4) {
    h[column4] = gelu(sums + bias[column4]);
  }
}
