// Decode step: attention of the step's one query over the cached keys and values, one workgroup
// per head: scores, softmax and the weighted sum of values in one dispatch. The probabilities go
// to `probs` [n_head, n_ctx] (the first kv_len of each row), which the probe reads; the output z
// is head-major [n_head·head_dim], i.e. already merged.
struct Params {
  head_dim: u32,
  n_ctx: u32,
  scale: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k_cache: array<f32>;
@group(0) @binding(4) var<storage, read> v_cache: array<f32>;
@group(0) @binding(5) var<storage, read_write> probs: array<f32>;
@group(0) @binding(6) var<storage, read_write> z: array<f32>;

var<workgroup> reduction: array<f32, 256>;

fn reduce(local: u32, value: f32, take_max: bool) -> f32 {
  workgroupBarrier();
  reduction[local] = value;
  for (var stride = 128u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (local < stride) {
      let other = reduction[local + stride];
      reduction[local] = select(reduction[local] + other, max(reduction[local], other), take_max);
    }
  }
  workgroupBarrier();
  return reduction[0];
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
  let head = group.x;
  let d = params.head_dim;
  let kv_len = step[0] + 1u;
  let query = head * d;
  let cache = head * params.n_ctx * d;
  let row = head * params.n_ctx;

  var largest = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  for (var j = local; j < kv_len; j += 256u) {
    var dot = 0.0;
    for (var i = 0u; i < d; i++) {
      dot += q[query + i] * k_cache[cache + j * d + i];
    }
    let score = dot * params.scale;
    probs[row + j] = score;
    largest = max(largest, score);
  }
  largest = reduce(local, largest, true);
  var total = 0.0;
  for (var j = local; j < kv_len; j += 256u) {
    let e = exp(probs[row + j] - largest);
    probs[row + j] = e;
    total += e;
  }
  total = reduce(local, total, false);
  for (var j = local; j < kv_len; j += 256u) {
    probs[row + j] = probs[row + j] / total;
  }
  storageBarrier();
  workgroupBarrier();

  // z[d] = Σ_j p_j · v_j[d]: 256/d groups of d threads, group g taking every (256/d)-th key.
  let groups = 256u / d;
  let lane = local % d;
  let g = local / d;
  var sum = 0.0;
  if (g < groups) {
    for (var j = g; j < kv_len; j += groups) {
      sum += probs[row + j] * v_cache[cache + j * d + lane];
    }
  }
  workgroupBarrier();
  reduction[local] = sum;
  for (var stride = groups / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (g < stride) {
      reduction[local] += reduction[local + stride * d];
    }
  }
  workgroupBarrier();
  if (local < d) {
    z[query + local] = reduction[local];
  }
}
