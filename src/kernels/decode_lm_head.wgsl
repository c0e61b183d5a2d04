// Decode step: the final LayerNorm and the tied LM head, logits[v] = LN_f(x) · wte[v]. The token
// table is [vocab, width], so each logit is a dot product over a contiguous row; each thread takes
// one row, reading it in vec4s (consecutive loads of a thread share cache lines). No reduction
// across threads: on software adapters every workgroup barrier is costly, and here only the
// LayerNorm statistics need them.
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

var<workgroup> normalized: array<vec4<f32>, 512>;  // LN_f(x), for widths up to 2048

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
  workgroupBarrier();
  let token = (group.y * groups.x + group.x) * 256u + local;
  if (token >= params.vocab) {
    return;
  }
  var sum = vec4<f32>(0.0);
  let row = token * params.width4;
  for (var k4 = 0u; k4 < params.width4; k4++) {
    sum += normalized[k4] * wte[row + k4];
  }
  logits[token] = sum.x + sum.y + sum.z + sum.w;
}
