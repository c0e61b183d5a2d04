// Decode step: LayerNorm 1, the fused QKV projection with its bias, and the head split — q goes
// to `q` [n_head·head_dim], k and v straight into the caches [n_head, n_ctx, head_dim] at the
// step's position.
struct Params {
  k: u32,   // width
  n4: u32,  // 3·width / 4
  tx: u32,
  head_dim: u32,
  n_ctx: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> ln_params: array<f32>;
@group(0) @binding(4) var<storage, read> weight: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> q: array<f32>;
@group(0) @binding(7) var<storage, read_write> k_cache: array<f32>;
@group(0) @binding(8) var<storage, read_write> v_cache: array<f32>;

//! include "decode_layernorm.wgsl"
//! include "decode_gemv.wgsl"

fn input_at(row: u32) -> f32 {
  return ln_normalized(row, params.k);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
  ln_statistics(local, params.k, params.eps);
  let column4 = group.x * params.tx + local % params.tx;
  let sums = gemv_columns(local, column4, params.k, params.n4, params.tx);
  if (local >= params.tx || column4 >= params.n4) {
    return;
  }
  let values = sums + bias[column4];
  let width = params.k;
  let position = step[0];
  for (var lane = 0u; lane < 4u; lane++) {
    let column = column4 * 4u + lane;
    let part = column / width;  // 0 = q, 1 = k, 2 = v
    let within = column % width;
    let head = within / params.head_dim;
    let cached = (head * params.n_ctx + position) * params.head_dim + within % params.head_dim;
    if (part == 0u) {
      q[within] = values[lane];
    } else if (part == 1u) {
      k_cache[cached] = values[lane];
    } else {
      v_cache[cached] = values[lane];
    }
  }
}
