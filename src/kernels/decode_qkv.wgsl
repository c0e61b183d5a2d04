// Decode step: LayerNorm 1, the fused QKV projection with its bias, and the head split — q goes
// to `q` [n_head·head_dim], k and v straight into the caches [n_head, n_ctx, head_dim] at the
// step's position. Thread layout: lib/decode_gemv.wgsl (256 threads, 8·tx columns a workgroup,
// n8 = 3·width / 8 column groups). width is a multiple of 8 up to 2048; the weights are stored as
// DTYPE; REDUCE says how workgroups reduce.
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  k: u32,   // width
  n8: u32,  // 3·width / 8
  tx: u32,
  head_dim: u32,
  n_ctx: u32,
  eps: f32,
  strips: u32,  // the weights in column strips (wgpt::Layout), else row-major
}

const REDUCE_THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> ln_params: array<f32>;
@group(0) @binding(4) var<storage, read> weight: array<weight_word>;
@group(0) @binding(5) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> q: array<f32>;
@group(0) @binding(7) var<storage, read_write> k_cache: array<f32>;
@group(0) @binding(8) var<storage, read_write> v_cache: array<f32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "decode_stage.wgsl"
//! include "decode_layernorm.wgsl"
//! include "decode_gemv.wgsl"

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>) {
  reduce_begin(invocation);
  let role = gemv_role(group.x, params.tx);
  gemv_prefetch(role, params.k, params.n8, params.strips != 0u);
  // The epilogue's inputs are loaded now too, so that their latency overlaps the product's.
  let at = min(role.column8, params.n8 - 1u) * 2u;
  let bias_lo = bias[at];
  let bias_hi = bias[at + 1u];
  ln_stage(params.k, params.eps);
  workgroupBarrier();  // publishes `staged`
  let sums = gemv_columns(role, params.k, params.n8, params.tx, params.strips != 0u);
  if (worker >= params.tx || role.column8 >= params.n8) {
    return;
  }
  let width = params.k;
  let position = step[0];
  for (var half = 0u; half < 2u; half++) {
    let values = sums[half] + select(bias_lo, bias_hi, half == 1u);
    for (var lane = 0u; lane < 4u; lane++) {
      let column = role.column8 * 8u + half * 4u + lane;
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
}
