// Decode step: LayerNorm 1 and the fused QKV projection, with attention part 1 of 2 (split over
// the keys, as flash-decoding) in the same dispatch. y = LN(x) · W + b [3·width] is computed by
// two kinds of workgroup, neither waiting for the other:
// - projection workgroups (the first kv_groups) compute y's k and v thirds, lib/decode_gemv.wgsl's
//   layout over their 2·width / 8 column groups, and write head h's into the caches
//   [n_head, n_ctx, head_dim] at the step's position;
// - chunk workgroups (head, chunk) each compute their head's query q_h themselves — LN(x) and
//   head_dim columns of the product, a few KB of weights that the other chunks of the head read
//   too — then score the chunk's 64 cached keys of those before the position against it, and keep
//   the chunk's softmax statistics and unnormalised weighted sum of values.
// Before, a QKV dispatch ran first and the chunks read q from it: one more dependent dispatch a
// layer, each with a floor of 2–3 µs (lib/decode_gemv.wgsl). Now the projection runs beside the
// chunks, and each chunk workgroup pays for its query with a longer product chain (GPT-2's 64-wide
// heads: 8 threads across, 24 rows of weights each, where the projection's threads take 3).
// The step's own key and value are not in any chunk: decode_attention_output scores and merges
// them, after this dispatch has written them. Chunk 0 of each head, which runs even at position 0,
// writes q_h into the scratch for it.
// The scratch (ops::decode::ScratchLayout) holds q [width] at 0, the raw scores [n_head, n_ctx] at
// scores_at and the chunks' partials [n_head, chunks, head_dim + 2] — max, sum of exp, then
// head_dim partial outputs — at partials_at. Chunks past the position do nothing.
// 256 threads. width is a multiple of 8 up to 2048; head_dim a power of two from 4 to 256, so
// rows are read as vec4s; the weights are stored as DTYPE; REDUCE says how workgroups reduce.
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  k: u32,          // width
  n8: u32,         // 3·width / 8: the weight matrix's column groups
  tx: u32,         // the projection workgroups' threads across column groups
  kv_groups: u32,  // projection workgroups
  head_dim: u32,
  n_head: u32,
  n_ctx: u32,
  chunks: u32,  // ceil(n_ctx / 64)
  eps: f32,
  scale: f32,
  strips: u32,  // the weights in column strips (wgpt::Layout), else row-major
  scores_at: u32,
  partials_at: u32,
}

const REDUCE_THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> ln_params: array<f32>;
@group(0) @binding(4) var<storage, read> weight: array<weight_word>;
@group(0) @binding(5) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> k_cache: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> v_cache: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> scratch: array<f32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "decode_stage.wgsl"
//! include "decode_layernorm.wgsl"
//! include "decode_gemv.wgsl"

const CHUNK: u32 = 64u;
const AHEAD: u32 = 16u;     // values loaded before the softmax, per thread
const KEY_BLOCK: u32 = 8u;  // vec4s of a key loaded at once

var<workgroup> query: array<vec4<f32>, 64>;  // q_h, head_dim values
var<workgroup> weights: array<f32, CHUNK>;
var<workgroup> value_sums: array<vec4<f32>, CHUNK>;

// A projection workgroup: its columns of k and v (column group kv_group of them) into the caches.
fn project(kv_group: u32) {
  var role = gemv_role(kv_group, params.tx);
  role.column8 += params.k / 8u;  // past q's columns
  gemv_prefetch(role, params.k, params.n8, params.strips != 0u);
  // The epilogue's inputs are loaded now too, so that their latency overlaps the product's.
  let at = min(role.column8, params.n8 - 1u) * 2u;
  let bias_lo = bias[at];
  let bias_hi = bias[at + 1u];
  ln_stage(params.k, params.eps);
  workgroupBarrier();  // publishes `staged`
  let sums = gemv_columns(role, params.k, params.n8, params.tx, params.strips != 0u);
  if (worker >= params.tx || role.column8 >= params.n8) {
    return;
  }
  let position = step[0];
  let d4 = params.head_dim / 4u;
  for (var half = 0u; half < 2u; half++) {
    // Four columns of one head (head_dim is a multiple of 4): one vec4 of its cached row.
    let column = role.column8 * 8u + half * 4u;
    let within = column % params.k;
    let head = within / params.head_dim;
    let cached = (head * params.n_ctx + position) * d4 + (within % params.head_dim) / 4u;
    let values = sums[half] + select(bias_lo, bias_hi, half == 1u);
    if (column < 2u * params.k) {
      k_cache[cached] = values;
    } else {
      v_cache[cached] = values;
    }
  }
}

// q_h into `query` (published): the head's column groups of the product, head_dim / 8 threads
// across them (one group holding a 4-wide head's columns and its neighbour's). Called after the
// LayerNorm is staged, with the thread's first weights prefetched for `role`.
fn stage_query(role: GemvRole, head: u32, tx: u32) {
  let at = role.column8 * 2u;
  let bias_lo = bias[at];
  let bias_hi = bias[at + 1u];
  let sums = gemv_columns(role, params.k, params.n8, tx, params.strips != 0u);
  if (worker < tx) {
    let first = head * params.head_dim;
    for (var half = 0u; half < 2u; half++) {
      let column = role.column8 * 8u + half * 4u;
      if (column >= first && column < first + params.head_dim) {
        query[(column - first) / 4u] = sums[half] + select(bias_lo, bias_hi, half == 1u);
      }
    }
  }
  workgroupBarrier();
}

// A chunk workgroup: keys chunk·64 .. of those before the position, for one head.
fn attend(head: u32, chunk: u32) {
  let position = step[0];  // the keys before the step's own
  let first = chunk * CHUNK;
  // Uniform across the workgroup; chunk 0 goes on to write q_h.
  if (chunk > 0u && first >= position) {
    return;
  }
  let d4 = params.head_dim / 4u;
  // The head's column groups: head_dim / 8 of them, or for 4-wide heads the one it shares.
  let tx = max(params.head_dim / 8u, 1u);
  let role = gemv_role(head * params.head_dim / (8u * tx), tx);
  gemv_prefetch(role, params.k, params.n8, params.strips != 0u);
  let cache = head * params.n_ctx * d4;  // in vec4s
  let count = min(CHUNK, max(position, first) - first);
  // Thread (key group, lane) of the first 64: output vec4 `lane` over keys key_group,
  // key_group + groups, ... of the chunk (d4 is a power of two up to 64, so the 64 threads are
  // `groups` groups of d4, and each takes 64 / groups = d4 keys). Up to AHEAD of their values are
  // loaded now, so that their latency overlaps the query's product.
  let groups = CHUNK / d4;
  let lane = worker % d4;
  let key_group = worker / d4;
  let keeps_values = worker < CHUNK && count > 0u;
  var values: array<vec4<f32>, AHEAD>;
  for (var n = 0u; n < AHEAD; n++) {
    let key = min(key_group + n * groups, count - 1u);
    if (keeps_values && n < d4) {
      values[n] = v_cache[cache + (first + key) * d4 + lane];
    }
  }
  ln_stage(params.k, params.eps);
  workgroupBarrier();  // publishes `staged`
  stage_query(role, head, tx);
  if (chunk == 0u && worker < d4) {
    let q = query[worker];
    let at = head * params.head_dim + worker * 4u;
    scratch[at] = q.x;
    scratch[at + 1u] = q.y;
    scratch[at + 2u] = q.z;
    scratch[at + 3u] = q.w;
  }
  if (count == 0u) {
    return;  // chunk 0 at position 0: no keys before the step's own
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
        qi[n] = select(vec4<f32>(0.0), query[i], i0 + n < d4);
      }
      for (var n = 0u; n < KEY_BLOCK; n++) {
        dot4 += qi[n] * k[n];
      }
    }
    score = (dot4.x + dot4.y + dot4.z + dot4.w) * params.scale;
    scratch[params.scores_at + head * params.n_ctx + j] = score;
  }
  let largest = workgroup_max(score);
  let e = select(0.0, exp(score - largest), worker < count);
  if (worker < CHUNK) {
    weights[worker] = e;
  }
  let total = workgroup_sum(e);  // its barriers also publish `weights`
  let out = params.partials_at + (head * params.chunks + chunk) * (params.head_dim + 2u);
  if (worker == 0u) {
    scratch[out] = largest;
    scratch[out + 1u] = total;
  }
  var sum = vec4<f32>(0.0);
  if (worker < CHUNK) {
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
  }
  workgroupBarrier();
  if (worker < CHUNK) {
    value_sums[worker] = sum;
  }
  workgroupBarrier();
  if (worker < d4) {
    var all = value_sums[worker];
    for (var g = 1u; g < groups; g++) {
      all += value_sums[g * d4 + worker];
    }
    let at = out + 2u + worker * 4u;
    scratch[at] = all.x;
    scratch[at + 1u] = all.y;
    scratch[at + 2u] = all.z;
    scratch[at + 3u] = all.w;
  }
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) grid: vec3<u32>) {
  // The workgroups in one sequence, folded into rows where there are more than a row allows.
  let index = group.y * grid.x + group.x;
  if (index >= params.kv_groups + params.n_head * params.chunks) {
    return;
  }
  reduce_begin(invocation);
  if (index < params.kv_groups) {
    project(index);
    return;
  }
  let c = index - params.kv_groups;
  attend(c % params.n_head, c / params.n_head);
}
