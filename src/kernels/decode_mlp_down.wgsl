// Decode step: the MLP's second layer with its bias, added into the residual stream in place:
// x += h · W + b. Each column of x is read and written by one thread only, so updating in place is
// safe. Thread layout: lib/decode_gemv.wgsl (k = 4·width rows, read straight from h: a batch's
// loads of h go out with its weights', where staging h in workgroup memory would put a round trip
// and a barrier before them). Workgroups past the product's warm the weights in `warm`
// (lib/decode_warm.wgsl).
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  k: u32,
  n8: u32,
  tx: u32,
  strips: u32,  // the weights in column strips (wgpt::Layout), else row-major
}

const REDUCE_THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> h: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<weight_word>;
@group(0) @binding(3) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> warm: array<u32>;
@group(0) @binding(6) var<storage, read_write> warm_sink: array<u32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "decode_gemv.wgsl"
//! include "decode_gemv_residual.wgsl"
//! include "decode_warm.wgsl"

const WARM_THREADS: u32 = 256u;

fn stage_input() {}

fn gemv_input(row: u32) -> f32 {
  return h[row];
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>) {
  reduce_begin(invocation);
  let role = gemv_role(group.x, params.tx);
  gemv_prefetch(role, params.k, params.n8, params.strips != 0u);
  if (warmed_instead(group.x, gemv_groups(params.n8, params.tx), invocation.local)) {
    return;
  }
  add_prefetched_gemv_to_residual(role);
}
