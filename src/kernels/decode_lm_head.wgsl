// Decode step: the final LayerNorm and the tied LM head, logits[v] = LN_f(x) · wte[v]. The token
// table is [vocab, width], so each logit is a dot product over a contiguous row: 32 threads share
// a row (coalesced reads) and a workgroup covers 8 rows.
struct Params {
  width4: u32,
  vocab: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> ln_params: array<f32>;
@group(0) @binding(3) var<storage, read> wte: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> logits: array<f32>;

//! include "decode_layernorm.wgsl"

var<workgroup> row_sums: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let width = params.width4 * 4u;
  ln_statistics(local, width, params.eps);
  let token = (group.y * groups.x + group.x) * 8u + local / 32u;
  let lane = local % 32u;
  var sum = 0.0;
  if (token < params.vocab) {
    for (var k4 = lane; k4 < params.width4; k4 += 32u) {
      let k = k4 * 4u;
      let normalized = vec4<f32>(ln_normalized(k, width), ln_normalized(k + 1u, width),
                                 ln_normalized(k + 2u, width), ln_normalized(k + 3u, width));
      sum += dot(normalized, wte[token * params.width4 + k4]);
    }
  }
  row_sums[local] = sum;
  for (var stride = 16u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (lane < stride) {
      row_sums[local] += row_sums[local + stride];
    }
  }
  workgroupBarrier();
  if (lane == 0u && token < params.vocab) {
    logits[token] = row_sums[local];
  }
}
