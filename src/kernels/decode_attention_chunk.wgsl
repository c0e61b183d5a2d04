// Decode step, attention part 1 of 2 (split over the keys, as flash-decoding): workgroup (head,
// chunk) takes 64 cached keys, scores them against the step's query, and keeps the chunk's
// softmax statistics and its unnormalised weighted sum of values. Raw scores go to `scores`
// [n_head, n_ctx], which part 2 turns into probabilities. Chunks past kv_len do nothing.
// head_dim is a multiple of 4 up to 256, so rows are read as vec4s: a thread scores one key, then
// for the values each thread owns one vec4 of the output and a quarter (or less) of the keys, so
// it issues few, wide loads.
struct Params {
  head_dim: u32,
  n_ctx: u32,
  scale: f32,
  chunks: u32,  // ceil(n_ctx / 64)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> k_cache: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> v_cache: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> scores: array<f32>;
// Per (head, chunk): [max, sum of exp, then head_dim partial outputs].
@group(0) @binding(6) var<storage, read_write> partials: array<f32>;

var<workgroup> weights: array<f32, 64>;
var<workgroup> reduction: array<f32, 64>;
var<workgroup> value_sums: array<vec4<f32>, 64>;

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
  let d4 = params.head_dim / 4u;
  let cache = head * params.n_ctx * d4;  // in vec4s
  let j = first + local;
  var score = bitcast<f32>(0xff7fffffu);  // the lowest finite f32: no weight
  if (j < kv_len) {
    // Four independent loads in flight (d4 is a power of two: 1, 2, or a multiple of 4).
    let key = cache + j * d4;
    var dot0 = vec4<f32>(0.0);
    var dot1 = vec4<f32>(0.0);
    var i = 0u;
    for (; i + 3u < d4; i += 4u) {
      dot0 += q[head * d4 + i] * k_cache[key + i] + q[head * d4 + i + 1u] * k_cache[key + i + 1u];
      dot1 += q[head * d4 + i + 2u] * k_cache[key + i + 2u] +
              q[head * d4 + i + 3u] * k_cache[key + i + 3u];
    }
    for (; i < d4; i++) {
      dot0 += q[head * d4 + i] * k_cache[key + i];
    }
    let dot4 = dot0 + dot1;
    score = (dot4.x + dot4.y + dot4.z + dot4.w) * params.scale;
    scores[head * params.n_ctx + j] = score;
  }
  let largest = reduce(local, score, true);
  let e = select(0.0, exp(score - largest), j < kv_len);
  weights[local] = e;
  let total = reduce(local, e, false);  // its first barrier also publishes `weights`
  let out = (head * params.chunks + chunk) * (params.head_dim + 2u);
  if (local == 0u) {
    partials[out] = largest;
    partials[out + 1u] = total;
  }
  // Thread (key group g, output vec4 l): keys g, g + groups, ... of the chunk. d4 is a power
  // of two up to 64, so the 64 threads are exactly `groups` groups of d4.
  let groups = 64u / d4;
  let lane = local % d4;
  let key_group = local / d4;
  let count = min(64u, kv_len - first);
  var sum0 = vec4<f32>(0.0);
  var sum1 = vec4<f32>(0.0);
  var key = key_group;
  for (; key + 3u * groups < count; key += 4u * groups) {
    let at = cache + (first + key) * d4 + lane;
    sum0 += weights[key] * v_cache[at] + weights[key + groups] * v_cache[at + groups * d4];
    sum1 += weights[key + 2u * groups] * v_cache[at + 2u * groups * d4] +
            weights[key + 3u * groups] * v_cache[at + 3u * groups * d4];
  }
  for (; key < count; key += groups) {
    sum0 += weights[key] * v_cache[cache + (first + key) * d4 + lane];
  }
  value_sums[local] = sum0 + sum1;
  workgroupBarrier();
  if (local < d4) {
    var all = value_sums[local];
    for (var g = 1u; g < groups; g++) {
      all += value_sums[g * d4 + local];
    }
    let at = out + 2u + local * 4u;
    partials[at] = all.x;
    partials[at + 1u] = all.y;
    partials[at + 2u] = all.z;
    partials[at + 3u] = all.w;
  }
}
