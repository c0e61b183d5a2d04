// A batched decode step's attention, heads merged: row r of qkv [rows, 3C] (queries first, C =
// n_head · head_dim) is the newest token of the sequence in slot slots[r] at position
// positions[r], and for each head h
//   out[r, h·hd + d] = Σ_{j ≤ positions[r]} softmax_j(scale · q_r · k_j) · v[slot, h, j, d],
// with k, v that slot's block of the pools [slots, n_head, n_ctx, head_dim] (kv_store_rows has
// written row positions[r]). So a row reads only its own sequence's cache, to its own length, and
// its numbers do not depend on the other rows.
//
// Workgroup (head, row): 64 threads over tiles of 64 keys. Thread t scores key k0 + t against the
// query (in workgroup memory, pre-scaled); the tile's maximum and sum are reduced through
// workgroup memory and folded into a running maximum and sum (an online softmax), and thread t
// accumulates output columns t, t + 64, t + 128, t + 192 (head_dim ≤ 256) over the tile's keys,
// whose values it reads row by row (consecutive threads, consecutive columns). A row whose slot
// or position lies outside the pools writes `missing` (NaN). Grid (n_head, rows).
struct Params {
  n_head: u32,
  head_dim: u32,
  n_ctx: u32,
  slots: u32,
  scale: f32,
  missing: f32,  // NaN, from the host (WGSL has no NaN constant)
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<f32>;
@group(0) @binding(2) var<storage, read> k_pool: array<f32>;
@group(0) @binding(3) var<storage, read> v_pool: array<f32>;
@group(0) @binding(4) var<storage, read> slots: array<u32>;
@group(0) @binding(5) var<storage, read> positions: array<u32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;

const THREADS: u32 = 64u;
const COLUMNS: u32 = 4u;  // output columns per thread: head_dim ≤ THREADS · COLUMNS
const LOWEST: f32 = -3.0e38;  // below every real score: no weight

var<workgroup> q: array<f32, 256>;
var<workgroup> weights: array<f32, THREADS>;
var<workgroup> reduction: array<f32, THREADS>;

fn reduce(local: u32, value: f32, take_max: bool) -> f32 {
  workgroupBarrier();
  reduction[local] = value;
  for (var stride = THREADS / 2u; stride > 0u; stride /= 2u) {
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
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) group: vec3<u32>) {
  let head = group.x;
  let row = group.y;
  let c = p.n_head * p.head_dim;
  let out_at = row * c + head * p.head_dim;
  let slot = slots[row];
  let position = positions[row];
  if (slot >= p.slots || position >= p.n_ctx) {
    for (var d = local; d < p.head_dim; d += THREADS) {
      out[out_at + d] = p.missing;
    }
    return;  // uniform across the workgroup
  }
  for (var d = local; d < p.head_dim; d += THREADS) {
    q[d] = qkv[row * 3u * c + head * p.head_dim + d] * p.scale;
  }
  let cache = (slot * p.n_head + head) * p.n_ctx * p.head_dim;
  let kv_len = position + 1u;
  var o = array<f32, COLUMNS>(0.0, 0.0, 0.0, 0.0);
  var running_max = LOWEST;
  var running_sum = 0.0;
  for (var k0 = 0u; k0 < kv_len; k0 += THREADS) {
    workgroupBarrier();  // publishes `q`; the previous tile's weights are used up
    let j = k0 + local;
    var score = LOWEST;
    if (j < kv_len) {
      var dot_product = 0.0;
      let key = cache + j * p.head_dim;
      for (var d = 0u; d < p.head_dim; d++) {
        dot_product += q[d] * k_pool[key + d];
      }
      score = dot_product;
    }
    let new_max = max(running_max, reduce(local, score, true));
    let weight = select(0.0, exp(score - new_max), j < kv_len);
    weights[local] = weight;
    let tile_sum = reduce(local, weight, false);  // its first barrier also publishes `weights`
    let rescale = exp(running_max - new_max);
    running_sum = running_sum * rescale + tile_sum;
    let count = min(THREADS, kv_len - k0);
    for (var i = 0u; i < COLUMNS; i++) {
      let d = local + i * THREADS;
      if (d < p.head_dim) {
        var sum = o[i] * rescale;
        for (var k = 0u; k < count; k++) {
          sum += weights[k] * v_pool[cache + (k0 + k) * p.head_dim + d];
        }
        o[i] = sum;
      }
    }
    running_max = new_max;
  }
  for (var i = 0u; i < COLUMNS; i++) {
    let d = local + i * THREADS;
    if (d < p.head_dim) {
      out[out_at + d] = o[i] / running_sum;
    }
  }
}
