// Decode step, attention part 2 of 2, fused with the output projection: every workgroup merges
// the chunks' softmax statistics of every head (rescaling each chunk by exp(its max − the
// overall max)) into the merged head outputs z [n_head·head_dim], staged in workgroup memory as
// the GEMV's input, then adds z · W + b into the residual stream x in place. Merging per
// workgroup costs a few KB of cached reads and saves a dispatch per layer.
// Workgroups g, g + groups, ... also turn head g's raw scores into the probabilities the probe
// reads; every layer's go to one buffer packed as [n_layer, n_head, kv_len] for this step's
// kv_len, so a probed step reads them as one region.
struct Params {
  k: u32,   // width
  n4: u32,  // width / 4
  tx: u32,
  head_dim: u32,
  n_ctx: u32,
  chunks: u32,  // ceil(n_ctx / 64)
  layer: u32,
  n_head: u32,  // at most 64
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> partials: array<f32>;
@group(0) @binding(3) var<storage, read> scores: array<f32>;
@group(0) @binding(4) var<storage, read> weight: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> patterns: array<f32>;
@group(0) @binding(7) var<storage, read_write> x: array<vec4<f32>>;

//! include "decode_gemv.wgsl"

var<workgroup> head_largest: array<f32, 64>;
var<workgroup> head_total: array<f32, 64>;

fn chunks_used() -> u32 {
  return (step[0] + 64u) / 64u;  // ceil(kv_len / 64), kv_len = position + 1
}

// z[row]: head row / head_dim's output, lane row % head_dim.
fn input_at(row: u32) -> f32 {
  let d = params.head_dim;
  let head = row / d;
  let base = head * params.chunks * (d + 2u);
  var sum = 0.0;
  for (var c = 0u; c < chunks_used(); c++) {
    let at = base + c * (d + 2u);
    sum += partials[at + 2u + row % d] * exp(partials[at] - head_largest[head]);
  }
  return sum / head_total[head];
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let d = params.head_dim;
  if (local < params.n_head) {
    let base = local * params.chunks * (d + 2u);
    var largest = bitcast<f32>(0xff7fffffu);
    for (var c = 0u; c < chunks_used(); c++) {
      largest = max(largest, partials[base + c * (d + 2u)]);
    }
    var total = 0.0;
    for (var c = 0u; c < chunks_used(); c++) {
      let at = base + c * (d + 2u);
      total += partials[at + 1u] * exp(partials[at] - largest);
    }
    head_largest[local] = largest;
    head_total[local] = total;
  }
  // gemv_columns's first barrier publishes the statistics before input_at reads them.
  let column4 = group.x * params.tx + local % params.tx;
  let sums = gemv_columns(local, column4, params.k, params.n4, params.tx);
  if (local < params.tx && column4 < params.n4) {
    x[column4] = x[column4] + sums + bias[column4];
  }
  let kv_len = step[0] + 1u;
  for (var head = group.x; head < params.n_head; head += groups.x) {
    let row = head * params.n_ctx;
    let out = (params.layer * params.n_head + head) * kv_len;
    for (var j = local; j < kv_len; j += 256u) {
      patterns[out + j] = exp(scores[row + j] - head_largest[head]) / head_total[head];
    }
  }
}
