// Decode step: the final LayerNorm and the tied LM head, logits[v] = LN_f(x) · wte[v], and each
// workgroup's greedy candidate. The token table is [vocab, width], so each logit is a dot product
// over a contiguous row: 8 threads share a row (reading 128 contiguous bytes per step), 32 rows
// per workgroup — many workgroups, to keep enough reads in flight. The candidate — the
// workgroup's largest logit, the lowest index on ties — goes to `best` [workgroups, 3] for
// decode_argmax to finish, with the workgroup's sum of exponentials for the probe.
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
@group(0) @binding(5) var<storage, read_write> best: array<u32>;

//! include "decode_layernorm.wgsl"

var<workgroup> normalized: array<vec4<f32>, 512>;  // LN_f(x), for widths up to 2048
var<workgroup> row_sums: array<f32, 256>;
//! include "decode_best.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let width = params.width4 * 4u;
  ln_statistics(local, width, params.eps);
  for (var k4 = local; k4 < params.width4; k4 += 256u) {
    let k = k4 * 4u;
    normalized[k4] = vec4<f32>(ln_normalized(k, width), ln_normalized(k + 1u, width),
                               ln_normalized(k + 2u, width), ln_normalized(k + 3u, width));
  }
  let workgroup = group.y * groups.x + group.x;
  let lane = local % 8u;
  let token = workgroup * 32u + local / 8u;
  var s0 = vec4<f32>(0.0);
  var s1 = vec4<f32>(0.0);
  var s2 = vec4<f32>(0.0);
  var s3 = vec4<f32>(0.0);
  workgroupBarrier();  // publishes `normalized`
  if (token < params.vocab) {
    // Four independent loads in flight per thread: the loop is bound by memory latency.
    let row = token * params.width4;
    var k4 = lane;
    for (; k4 + 24u < params.width4; k4 += 32u) {
      s0 += normalized[k4] * wte[row + k4];
      s1 += normalized[k4 + 8u] * wte[row + k4 + 8u];
      s2 += normalized[k4 + 16u] * wte[row + k4 + 16u];
      s3 += normalized[k4 + 24u] * wte[row + k4 + 24u];
    }
    for (; k4 < params.width4; k4 += 8u) {
      s0 += normalized[k4] * wte[row + k4];
    }
  }
  let sum = (s0 + s1) + (s2 + s3);
  row_sums[local] = sum.x + sum.y + sum.z + sum.w;
  for (var stride = 4u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (lane < stride) {
      row_sums[local] += row_sums[local + stride];
    }
  }
  workgroupBarrier();
  var value = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  var index = 0xffffffffu;
  if (lane == 0u && token < params.vocab) {
    value = row_sums[local];
    index = token;
    logits[token] = value;
  }
  best_reduce(local, value, index);
  // The workgroup's Σ exp(logit − its largest logit), for the probe: merged across workgroups
  // (as the attention chunks are), it is the softmax normaliser, so the host need not take 50257
  // exponentials to report the top tokens' probabilities.
  let largest = best_value[0];
  workgroupBarrier();  // every row_sums read above is done
  row_sums[local] = select(0.0, exp(value - largest), lane == 0u && token < params.vocab);
  for (var stride = 128u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (local < stride) {
      row_sums[local] += row_sums[local + stride];
    }
  }
  workgroupBarrier();
  if (local == 0u) {
    best[workgroup * 3u] = bitcast<u32>(largest);
    best[workgroup * 3u + 1u] = best_index[0];
    best[workgroup * 3u + 2u] = bitcast<u32>(row_sums[0]);
  }
}
