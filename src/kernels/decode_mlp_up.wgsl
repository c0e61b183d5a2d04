// Decode step: LayerNorm 2, the MLP's first layer with its bias, and GELU (tanh form):
// h = gelu(LN(x) · W + b). Thread layout: lib/decode_gemv.wgsl (n8 = 4·width / 8 column groups).
// width is a multiple of 8 up to 2048; the weights are stored as DTYPE. Workgroups past the
// product's warm the weights in `warm` (lib/decode_warm.wgsl).
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  k: u32,   // width
  n8: u32,  // 4·width / 8
  tx: u32,
  eps: f32,
  strips: u32,  // the weights in column strips (wgpt::Layout), else row-major
}

const REDUCE_THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> ln_params: array<f32>;
@group(0) @binding(3) var<storage, read> weight: array<weight_word>;
@group(0) @binding(4) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> h: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> warm: array<u32>;
@group(0) @binding(7) var<storage, read_write> warm_sink: array<u32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "decode_stage.wgsl"
//! include "decode_layernorm.wgsl"
//! include "decode_gemv.wgsl"
//! include "decode_warm.wgsl"

const WARM_THREADS: u32 = 256u;

fn gelu(v: vec4<f32>) -> vec4<f32> {
  // Clamped: some backends build tanh from exp and would give inf/inf for large arguments (tanh
  // is ±1 in f32 well before ±10).
  let inner = clamp(0.7978845608028654 * (v + 0.044715 * v * v * v), vec4<f32>(-10.0),
                    vec4<f32>(10.0));
  return 0.5 * v * (1.0 + tanh(inner));
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>) {
  reduce_begin(invocation);
  let role = gemv_role(group.x, params.tx);
  gemv_prefetch(role, params.k, params.n8, params.strips != 0u);
  if (warmed_instead(group.x, gemv_groups(params.n8, params.tx), invocation.local)) {
    return;
  }
  // The epilogue's inputs are loaded now too, so that their latency overlaps the product's.
  let at = min(role.column8, params.n8 - 1u) * 2u;
  let bias_lo = bias[at];
  let bias_hi = bias[at + 1u];
  ln_stage(params.k, params.eps);
  workgroupBarrier();  // publishes `staged`
  let sums = gemv_columns(role, params.k, params.n8, params.tx, params.strips != 0u);
  if (worker < params.tx && role.column8 < params.n8) {
    h[at] = gelu(sums[0] + bias_lo);
    h[at + 1u] = gelu(sums[1] + bias_hi);
  }
}
