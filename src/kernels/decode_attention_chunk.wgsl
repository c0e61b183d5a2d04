// Decode step, attention part 1 of 2 (split over the keys, as flash-decoding): workgroup (head,
// chunk) takes 64 cached keys, scores them against the step's query, and keeps the chunk's
// softmax statistics and its unnormalised weighted sum of values. Raw scores go to `scores`
// [n_head, n_ctx], which part 2 turns into probabilities. Chunks past kv_len do nothing.
// 64 threads. head_dim is a power of two from 4 to 256, so rows are read as vec4s: a thread scores
// one key; for the values each thread owns one vec4 of the output (lane) and the keys of its key
// group, whose values it loads before the softmax so that their latency overlaps the scoring.
// Rows of workgroups past the chunks' warm the weights in `warm` (lib/decode_warm.wgsl).
//! variants REDUCE barrier subgroup
struct Params {
  head_dim: u32,
  n_ctx: u32,
  scale: f32,
  chunks: u32,  // ceil(n_ctx / 64)
}

const REDUCE_THREADS: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> k_cache: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> v_cache: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> scores: array<f32>;
// Per (head, chunk): [max, sum of exp, then head_dim partial outputs].
@group(0) @binding(6) var<storage, read_write> partials: array<f32>;
@group(0) @binding(7) var<storage, read> warm: array<u32>;
@group(0) @binding(8) var<storage, read_write> warm_sink: array<u32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "decode_warm.wgsl"

const WARM_THREADS: u32 = 64u;

const AHEAD: u32 = 16u;  // values loaded before the softmax, per thread
const KEY_BLOCK: u32 = 8u;  // vec4s of a key loaded at once

var<workgroup> weights: array<f32, 64>;
var<workgroup> value_sums: array<vec4<f32>, 64>;

@compute @workgroup_size(64)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) grid: vec3<u32>) {
  let head = group.x;
  let chunk = group.y;
  let kv_len = step[0] + 1u;
  let first = chunk * 64u;
  // Uniform across the workgroup. The warming workgroups' chunks (past params.chunks) lie past
  // every key, so they take this branch too, and the chunks' own path has no test for them (see
  // lib/decode_warm.wgsl's warmed_instead).
  if (first >= kv_len) {
    if (chunk >= params.chunks) {
      warm_weights((chunk - params.chunks) * grid.x + head, invocation.local);
    }
    return;
  }
  reduce_begin(invocation);
  let d4 = params.head_dim / 4u;
  let cache = head * params.n_ctx * d4;  // in vec4s
  let count = min(64u, kv_len - first);
  // Thread (key group, lane): output vec4 `lane` over keys key_group, key_group + groups, ... of
  // the chunk (d4 is a power of two up to 64, so the 64 threads are `groups` groups of d4, and each
  // takes 64 / groups = d4 keys). Up to AHEAD of their values are loaded first.
  let groups = 64u / d4;
  let lane = worker % d4;
  let key_group = worker / d4;
  var values: array<vec4<f32>, AHEAD>;
  for (var n = 0u; n < AHEAD; n++) {
    let key = min(key_group + n * groups, count - 1u);
    if (n < d4) {
      values[n] = v_cache[cache + (first + key) * d4 + lane];
    }
  }
  let j = first + worker;
  var score = bitcast<f32>(0xff7fffffu);  // the lowest finite f32: no weight
  if (worker < count) {
    let key = cache + j * d4;
    // The key's vec4s KEY_BLOCK at a time, a block's loads all in flight together.
    var dot4 = vec4<f32>(0.0);
    for (var i0 = 0u; i0 < d4; i0 += KEY_BLOCK) {
      var k: array<vec4<f32>, KEY_BLOCK>;
      var qi: array<vec4<f32>, KEY_BLOCK>;
      for (var n = 0u; n < KEY_BLOCK; n++) {
        let i = min(i0 + n, d4 - 1u);
        k[n] = k_cache[key + i];
        qi[n] = select(vec4<f32>(0.0), q[head * d4 + i], i0 + n < d4);
      }
      for (var n = 0u; n < KEY_BLOCK; n++) {
        dot4 += qi[n] * k[n];
      }
    }
    score = (dot4.x + dot4.y + dot4.z + dot4.w) * params.scale;
    scores[head * params.n_ctx + j] = score;
  }
  let largest = workgroup_max(score);
  let e = select(0.0, exp(score - largest), worker < count);
  weights[worker] = e;
  let total = workgroup_sum(e);  // its barriers also publish `weights`
  let out = (head * params.chunks + chunk) * (params.head_dim + 2u);
  if (worker == 0u) {
    partials[out] = largest;
    partials[out + 1u] = total;
  }
  var sum = vec4<f32>(0.0);
  for (var n = 0u; n < AHEAD; n++) {
    let key = key_group + n * groups;
    if (n < d4 && key < count) {
      sum += weights[key] * values[n];
    }
  }
  for (var n = AHEAD; n < d4; n++) {
    let key = key_group + n * groups;
    if (key < count) {
      sum += weights[key] * v_cache[cache + (first + key) * d4 + lane];
    }
  }
  workgroupBarrier();
  value_sums[worker] = sum;
  workgroupBarrier();
  if (worker < d4) {
    var all = value_sums[worker];
    for (var g = 1u; g < groups; g++) {
      all += value_sums[g * d4 + worker];
    }
    let at = out + 2u + worker * 4u;
    partials[at] = all.x;
    partials[at + 1u] = all.y;
    partials[at + 2u] = all.z;
    partials[at + 3u] = all.w;
  }
}
