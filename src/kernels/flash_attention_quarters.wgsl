// flash_attention.wgsl's attention (same parameters, bindings and grid) for adapters whose
// subgroups are 32 consecutive lanes (gpu::Context::subgroups_consecutive), built to fit two
// workgroups on a multiprocessor where flash_attention_pairs.wgsl fits one (247 registers a thread
// on an H100, docs/benchmarks.md; two 256-thread workgroups need at most 128), so that one
// workgroup's barriers and loads overlap the other's work. A thread holds two query rows' quarter
// of the head's dimensions (16 values of the query and 16 of the output each), where the pairs
// form holds half, and stages one vec4 of a tile's keys and one of its values where that stages
// two of each: about 90 values against about 160. Each key or value read from workgroup memory
// still serves two rows (8 fmas a read), and a warp's lanes read four consecutive vec4s of one key
// at a time (a broadcast to its eight row pairs). The price: a score takes two lane exchanges instead of one, each of a row's four
// quarter lanes takes the same exponentials, and a tile of 16 keys two barriers.
//
// Thread li: part li / 128 — keys 8 · part .. 8 · part + 7 of each tile of 16 —, row pair
// (li / 4) % 32 (rows 2 · pair and 2 · pair + 1 of the block) and quarter li % 4 — the head's
// vec4s quarter + 4 · dd, dd = 0..3. A score is the sum of the quarters' partial dot products,
// added across the four lanes of the pair (li ^ 1, li ^ 2), so all four hold the same scores,
// maxima, weights and sums. The softmax runs in base 2 (the query pre-scaled by log2 e). At the
// end the two parts of a row merge through workgroup memory.
//! include "flash_attention_block.wgsl"
//! include "subgroup_ops.wgsl"

const REDUCE_THREADS: u32 = 256u;  // subgroup_ops.wgsl's emulation in tests sizes itself by it
const KEYS: u32 = 16u;             // a tile's keys
const PART_KEYS: u32 = KEYS / 2u;  // of them, each part's
const QUARTER4: u32 = 4u;          // vec4s of the head a thread holds, of each of its rows
const LOG2E: f32 = 1.4426950408889634;

// A tile's keys and values, vec4 d of key j at j · HEAD4 + d: the four vec4s a warp reads at once
// are consecutive, in distinct banks.
var<workgroup> k_tile: array<vec4<f32>, KEYS * HEAD4>;
var<workgroup> v_tile: array<vec4<f32>, KEYS * HEAD4>;

// Thread li's vec4s of the tile of keys k0.. (vec4s li + 256 · n of the tile, key by key) and of
// its values; zeros from keys_end on. Fetched into registers a tile ahead, so that the load's
// latency hides behind the current tile's work.
const STAGED: u32 = KEYS * HEAD4 / 256u;
struct Staged {
  k: array<vec4<f32>, STAGED>,
  v: array<vec4<f32>, STAGED>,
}

fn fetch_tile(b: Block, k0: u32, li: u32) -> Staged {
  var staged: Staged;
  for (var n = 0u; n < STAGED; n++) {
    let e = li + 256u * n;
    let key = k0 + e / HEAD4;
    if (key < b.keys_end) {
      let at = b.head_keys + key * p.key_row + e % HEAD4;
      staged.k[n] = keys[p.key_first + at];
      staged.v[n] = values[p.value_first + at];
    }
  }
  return staged;
}

// The head's vec4 that this thread's vec4 dd is.
fn head_vec4(dd: u32, quarter: u32) -> u32 {
  return quarter + QUARTER4 * dd;
}

// Whether keys `key` and `key` + 1 are visible to each of the two rows, in a score vec4's order
// (row 0, row 1 of `key`, then of `key` + 1).
fn seen(key: u32, visible: vec2<u32>) -> vec4<bool> {
  return vec4<u32>(key) + vec4<u32>(0u, 0u, 1u, 1u) < visible.xyxy;
}

// The sum of v over the four lanes of this thread's row pair.
fn quarters_sum(v: vec4<f32>) -> vec4<f32> {
  let halves = v + lanes_xor4(v, 1u);
  return halves + lanes_xor4(halves, 2u);
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  _ = invocation_lane(invocation);  // first, as subgroup_ops.wgsl asks
  let li = invocation.local;
  let b = block_of(wid, groups);
  let part = li / 128u;
  let pair = (li / 4u) % 32u;
  let quarter = li % 4u;
  let i = vec2<u32>(b.first_row + 2u * pair) + vec2<u32>(0u, 1u);  // this thread's query rows
  let packed_row = vec2<u32>(b.sequence * p.t) + i;  // their rows of qkv and out
  let width4 = p.n_head * HEAD4;  // vec4s per row of the attention's output
  let q_scale = p.scale * LOG2E;
  var q0: array<vec4<f32>, QUARTER4>;
  var q1: array<vec4<f32>, QUARTER4>;
  for (var dd = 0u; dd < QUARTER4; dd++) {
    let column = b.head * HEAD4 + head_vec4(dd, quarter);
    if (i.x < p.t) {
      q0[dd] = qkv[packed_row.x * 3u * width4 + column] * q_scale;
    }
    if (i.y < p.t) {
      q1[dd] = qkv[packed_row.y * 3u * width4 + column] * q_scale;
    }
  }
  var o0: array<vec4<f32>, QUARTER4>;
  var o1: array<vec4<f32>, QUARTER4>;
  var running_max = vec2<f32>(NONE);
  var running_sum = vec2<f32>(0.0);
  let visible = vec2<u32>(p.offset) + i + vec2<u32>(1u);  // keys j < visible, per row
  let first_key = part * PART_KEYS;  // this part's first key of each tile
  var staged = fetch_tile(b, 0u, li);
  for (var k0 = 0u; k0 < b.keys_end; k0 += KEYS) {
    workgroupBarrier();  // every thread is done with the previous tile
    for (var n = 0u; n < STAGED; n++) {
      k_tile[li + 256u * n] = staged.k[n];
      v_tile[li + 256u * n] = staged.v[n];
    }
    workgroupBarrier();
    staged = fetch_tile(b, k0 + KEYS, li);
    // scores[c]: (row 0, row 1) of key 2c of this part, then of key 2c + 1, in base 2.
    var scores: array<vec4<f32>, PART_KEYS / 2u>;
    var tile_max = vec2<f32>(NONE);
    for (var c = 0u; c < PART_KEYS / 2u; c++) {
      let key = first_key + 2u * c;
      var partial = vec4<f32>(0.0);
      for (var dd = 0u; dd < QUARTER4; dd++) {
        let ka = k_tile[key * HEAD4 + head_vec4(dd, quarter)];
        let kb = k_tile[(key + 1u) * HEAD4 + head_vec4(dd, quarter)];
        partial = vec4<f32>(dot_fma(q0[dd], ka, partial.x), dot_fma(q1[dd], ka, partial.y),
                            dot_fma(q0[dd], kb, partial.z), dot_fma(q1[dd], kb, partial.w));
      }
      scores[c] = select(vec4<f32>(NONE), quarters_sum(partial), seen(k0 + key, visible));
      tile_max = max(tile_max, max(scores[c].xy, scores[c].zw));
    }
    let new_max = max(running_max, tile_max);
    let rescale = exp2(running_max - new_max);
    running_sum *= rescale;
    for (var dd = 0u; dd < QUARTER4; dd++) {
      o0[dd] *= rescale.x;
      o1[dd] *= rescale.y;
    }
    for (var c = 0u; c < PART_KEYS / 2u; c++) {
      let key = first_key + 2u * c;
      let weight =
          select(vec4<f32>(0.0), exp2(scores[c] - new_max.xyxy), seen(k0 + key, visible));
      running_sum += weight.xy + weight.zw;
      for (var dd = 0u; dd < QUARTER4; dd++) {
        let va = v_tile[key * HEAD4 + head_vec4(dd, quarter)];
        let vb = v_tile[(key + 1u) * HEAD4 + head_vec4(dd, quarter)];
        // One term a statement: each is an fma, where a sum of two products added to o would
        // take a multiply and an add more.
        o0[dd] += weight.x * va;
        o0[dd] += weight.z * vb;
        o1[dd] += weight.y * va;
        o1[dd] += weight.w * vb;
      }
    }
    running_max = new_max;
  }
  // Merge the two parts of each row: each scales its outputs by its share of the row's softmax
  // (its sum against the row's maximum, over the row's total), then part 0 adds part 1's and
  // writes the row, for the block's rows 0..31 and then 32..63, a pair's first row through k_tile
  // and its second through v_tile. (Every workgroup read is used before the next barrier.)
  workgroupBarrier();
  if (quarter == 0u) {
    k_tile[part * 32u + pair] =
        vec4<f32>(running_max.x, running_sum.x, running_max.y, running_sum.y);
  }
  workgroupBarrier();
  let mine = k_tile[part * 32u + pair];
  let other = k_tile[(1u - part) * 32u + pair];
  let row_max = max(mine.xz, other.xz);
  let row_sum = mine.yw * exp2(mine.xz - row_max) + other.yw * exp2(other.xz - row_max);
  let share = exp2(running_max - row_max) / row_sum;
  for (var dd = 0u; dd < QUARTER4; dd++) {
    o0[dd] *= share.x;
    o1[dd] *= share.y;
  }
  for (var block_half = 0u; block_half < 2u; block_half++) {
    let in_half = pair / 16u == block_half;
    let at = (pair % 16u) * HEAD4;
    workgroupBarrier();
    if (part == 1u && in_half) {
      for (var dd = 0u; dd < QUARTER4; dd++) {
        k_tile[at + head_vec4(dd, quarter)] = o0[dd];
        v_tile[at + head_vec4(dd, quarter)] = o1[dd];
      }
    }
    workgroupBarrier();
    if (part == 0u && in_half) {
      for (var dd = 0u; dd < QUARTER4; dd++) {
        let column = b.head * HEAD4 + head_vec4(dd, quarter);
        if (i.x < p.t) {
          out[packed_row.x * width4 + column] = o0[dd] + k_tile[at + head_vec4(dd, quarter)];
        }
        if (i.y < p.t) {
          out[packed_row.y * width4 + column] = o1[dd] + v_tile[at + head_vec4(dd, quarter)];
        }
      }
    }
  }
}
