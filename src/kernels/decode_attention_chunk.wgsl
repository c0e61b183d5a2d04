// Decode step, attention part 1 of 2 (split over the keys, as flash-decoding): workgroup (head,
// chunk) takes 64 cached keys, scores them against the step's query, and keeps the chunk's
// softmax statistics and its unnormalised weighted sum of values. Raw scores go to `probs`
// [n_head, n_ctx], which part 2 turns into probabilities. Chunks past kv_len do nothing.
struct Params {
  head_dim: u32,
  n_ctx: u32,
  scale: f32,
  chunks: u32,  // ceil(n_ctx / 64)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k_cache: array<f32>;
@group(0) @binding(4) var<storage, read> v_cache: array<f32>;
@group(0) @binding(5) var<storage, read_write> probs: array<f32>;
// Per (head, chunk): [max, sum of exp, then head_dim partial outputs].
@group(0) @binding(6) var<storage, read_write> partials: array<f32>;

var<workgroup> weights: array<f32, 64>;
var<workgroup> reduction: array<f32, 64>;

fn reduce(local: u32, value: f32, take_max: bool) -> f32 {
  workgroupBarrier();
  reduction[local] = value;
  for (var stride = 32u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (local < stride) {
      let other = reduction[local + stride];
      reduction[local] = select(reduction[local] + other, max(reduction[local], other), take_max);
    }
  }
  workgroupBarrier();
  return reduction[0];
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
  let head = group.x;
  let chunk = group.y;
  let kv_len = step[0] + 1u;
  let first = chunk * 64u;
  if (first >= kv_len) {
    return;  // uniform across the workgroup
  }
  let d = params.head_dim;
  let cache = head * params.n_ctx * d;
  let j = first + local;
  var score = bitcast<f32>(0xff7fffffu);  // the lowest finite f32: no weight
  if (j < kv_len) {
    var dot = 0.0;
    for (var i = 0u; i < d; i++) {
      dot += q[head * d + i] * k_cache[cache + j * d + i];
    }
    score = dot * params.scale;
    probs[head * params.n_ctx + j] = score;
  }
  let largest = reduce(local, score, true);
  let e = select(0.0, exp(score - largest), j < kv_len);
  weights[local] = e;
  let total = reduce(local, e, false);  // its first barrier also publishes `weights`
  let out = (head * params.chunks + chunk) * (d + 2u);
  if (local == 0u) {
    partials[out] = largest;
    partials[out + 1u] = total;
  }
  let count = min(64u, kv_len - first);
  for (var lane = local; lane < d; lane += 64u) {
    var sum = 0.0;
    for (var k = 0u; k < count; k++) {
      sum += weights[k] * v_cache[cache + (first + k) * d + lane];
    }
    partials[out + 2u + lane] = sum;
  }
}
