// Decode step: the final LayerNorm and the tied LM head, logits[v] = LN_f(x) · wte[v], and each
// workgroup's greedy candidate. The token table is [vocab, width] (stored as DTYPE), so each logit
// is a dot product over a contiguous row: 8 threads share a row, each reading eight elements at a
// time, 32 rows per workgroup — many workgroups, to keep enough reads in flight. The candidate —
// the workgroup's largest logit, the lowest index on ties — goes to `best` [workgroups, 3] for
// decode_argmax to finish, with the workgroup's Σ exp(logit − its largest) for the probe.
// 256 threads; width is a multiple of 8 up to 2048.
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  width8: u32,
  vocab: u32,
  eps: f32,
}

const REDUCE_THREADS: u32 = 256u;
const ROWS: u32 = 32u;  // rows (tokens) per workgroup

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> ln_params: array<f32>;
@group(0) @binding(3) var<storage, read> wte: array<wte_word>;
@group(0) @binding(4) var<storage, read_write> logits: array<f32>;
@group(0) @binding(5) var<storage, read_write> best: array<u32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "load8_{DTYPE}.wgsl" for wte
//! include "decode_stage.wgsl"
//! include "decode_layernorm.wgsl"

fn dot8(k8: u32, w: mat2x4<f32>) -> f32 {
  let k = k8 * 8u;
  let lo = vec4<f32>(staged[k], staged[k + 1u], staged[k + 2u], staged[k + 3u]);
  let hi = vec4<f32>(staged[k + 4u], staged[k + 5u], staged[k + 6u], staged[k + 7u]);
  return dot(lo, w[0]) + dot(hi, w[1]);
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  reduce_begin(invocation);
  let workgroup = group.y * groups.x + group.x;
  let part = worker % 8u;
  let token = workgroup * ROWS + worker / 8u;
  let valid = token < params.vocab;
  let row = min(token, params.vocab - 1u) * params.width8;
  // The row's first four loads go out before the LayerNorm; four at a time after it.
  var ahead: array<mat2x4<f32>, 4>;
  for (var j = 0u; j < 4u; j++) {
    let k8 = part + j * 8u;
    if (k8 < params.width8) {
      ahead[j] = wte_at8(row + k8);
    }
  }
  ln_stage(params.width8 * 8u, params.eps);
  workgroupBarrier();  // publishes `staged`
  var sum = 0.0;
  for (var j = 0u; j < 4u; j++) {
    let k8 = part + j * 8u;
    if (k8 < params.width8) {
      sum += dot8(k8, ahead[j]);
    }
  }
  for (var k8 = part + 32u; k8 < params.width8; k8 += 32u) {
    var w: array<mat2x4<f32>, 4>;
    for (var j = 0u; j < 4u; j++) {
      w[j] = wte_at8(row + min(k8 + j * 8u, params.width8 - 1u));
    }
    for (var j = 0u; j < 4u; j++) {
      if (k8 + j * 8u < params.width8) {
        sum += dot8(k8 + j * 8u, w[j]);
      }
    }
  }
  let row_sum = octet_sum(sum);  // the 8 parts of a row are workers 8r .. 8r + 7
  var value = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  var index = 0xffffffffu;
  if (part == 0u && valid) {
    value = row_sum;
    index = token;
    logits[token] = value;
  }
  let chosen = workgroup_best(value, index);
  let largest = bitcast<f32>(chosen.x);
  // Σ exp(logit − the workgroup's largest), for the probe: merged across workgroups (as the
  // attention chunks are), it is the softmax normaliser, so the host need not take 50257
  // exponentials to report the top tokens' probabilities.
  let total = workgroup_sum(select(0.0, exp(value - largest), part == 0u && valid));
  if (worker == 0u && workgroup * ROWS < params.vocab) {  // the grid may round up past the end
    best[workgroup * 3u] = chosen.x;
    best[workgroup * 3u + 1u] = chosen.y;
    best[workgroup * 3u + 2u] = bitcast<u32>(total);
  }
}
