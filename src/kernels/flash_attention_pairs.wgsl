// flash_attention.wgsl's attention (same parameters, bindings, grid and tiles of keys) for
// adapters whose subgroups are 32 consecutive lanes (gpu::Context::subgroups_consecutive): a thread
// takes two query rows and half of the head's dimensions, where flash_attention.wgsl's takes one
// row and all of them. Its registers hold as many values (two rows' 32 dimensions of the query and
// of the output), but each key or value read from workgroup memory now serves two rows: 8 fmas a
// read instead of 4. flash_attention.wgsl reads workgroup memory as often as it does arithmetic
// with it (each read broadcast to the subgroup's eight rows), which is what keeps it at ~8 TFLOP/s
// on an H100 where the products run at 15–24 (docs/benchmarks.md, the twenty-second session).
//
// Thread li: row pair li / 8 (rows 2·pair and 2·pair + 1 of the block), half (li / 4) % 2 — the
// head's vec4s 2·dd + half, dd = 0..7 — and part li % 4 — keys part, part + 4, .. of each tile, as
// in flash_attention.wgsl. A score is the sum of the two halves' partial dot products, exchanged
// between lanes li and li ^ 4; both halves then hold the same scores, running maxima and sums (each
// takes its own exponentials), and at the end the four parts of a row merge as in that kernel.
// The halves interleave so that the eight keys and halves a subgroup reads at once fall in
// distinct banks: KEY_ROTATION 2 puts vec4 d of key j at (d + 2j) % 16 of the key's row.
//! include "flash_attention_tiles.wgsl"
//! include "subgroup_ops.wgsl"

const REDUCE_THREADS: u32 = 256u;  // subgroup_ops.wgsl's emulation in tests sizes itself by it
const KEY_ROTATION: u32 = 2u;
const HALF4: u32 = HEAD4 / 2u;  // vec4s of the head a thread holds, of each of its rows

// The head's vec4 that this thread's vec4 dd is.
fn head_vec4(dd: u32, half: u32) -> u32 {
  return 2u * dd + half;
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  _ = invocation_lane(invocation);  // first, as subgroup_ops.wgsl asks
  let li = invocation.local;
  let b = block_of(wid, groups);
  let pair = li / 8u;
  let half = (li / 4u) % 2u;
  let part = li % PARTS;
  let i = vec2<u32>(b.first_row + 2u * pair) + vec2<u32>(0u, 1u);  // this thread's query rows
  let packed_row = vec2<u32>(b.sequence * p.t) + i;  // their rows of qkv and out
  let width4 = p.n_head * HEAD4;  // vec4s per row of the attention's output
  var q0: array<vec4<f32>, HALF4>;
  var q1: array<vec4<f32>, HALF4>;
  for (var dd = 0u; dd < HALF4; dd++) {
    let column = b.head * HEAD4 + head_vec4(dd, half);
    if (i.x < p.t) {
      q0[dd] = qkv[packed_row.x * 3u * width4 + column] * p.scale;
    }
    if (i.y < p.t) {
      q1[dd] = qkv[packed_row.y * 3u * width4 + column] * p.scale;
    }
  }
  var o0: array<vec4<f32>, HALF4>;
  var o1: array<vec4<f32>, HALF4>;
  var running_max = vec2<f32>(NONE);
  var running_sum = vec2<f32>(0.0);
  let visible = vec2<u32>(p.offset) + i + vec2<u32>(1u);  // keys j < visible, per row
  var staged = fetch_tile(b.head_keys, 0u, b.keys_end, li);
  for (var k0 = 0u; k0 < b.keys_end; k0 += KEYS) {
    staged = advance_tile(staged, b, k0, li);
    var scores: array<vec2<f32>, KEYS / PARTS>;  // the two rows' scores of key c · 4 + part
    var tile_max = vec2<f32>(NONE);
    for (var c = 0u; c < KEYS / PARTS; c++) {
      let key = c * PARTS + part;
      var partial = vec2<f32>(0.0);
      for (var dd = 0u; dd < HALF4; dd++) {
        let k = k_tile[slot(key, head_vec4(dd, half))];
        partial += vec2<f32>(dot(q0[dd], k), dot(q1[dd], k));
      }
      let score = partial + vec2<f32>(lanes_xor(partial.x, 4u), lanes_xor(partial.y, 4u));
      scores[c] = select(vec2<f32>(NONE), score, vec2<u32>(k0 + key) < visible);
      tile_max = max(tile_max, scores[c]);
    }
    let new_max = max(running_max, tile_max);
    let rescale = exp(running_max - new_max);
    running_sum *= rescale;
    for (var dd = 0u; dd < HALF4; dd++) {
      o0[dd] *= rescale.x;
      o1[dd] *= rescale.y;
    }
    for (var c = 0u; c < KEYS / PARTS; c++) {
      let key = c * PARTS + part;
      let weight =
          select(vec2<f32>(0.0), exp(scores[c] - new_max), vec2<u32>(k0 + key) < visible);
      running_sum += weight;
      for (var dd = 0u; dd < HALF4; dd++) {
        let v = v_tile[slot(key, head_vec4(dd, half))];
        o0[dd] += weight.x * v;
        o1[dd] += weight.y * v;
      }
    }
    running_max = new_max;
  }
  // Merge the four parts of each row, as flash_attention.wgsl does: each scales its outputs by its
  // share of the row's softmax, then part 0 adds the other three's, one part at a time, rows 0..31
  // of the block through k_tile and 32..63 through v_tile. (Every workgroup read is used before
  // the next barrier.)
  workgroupBarrier();
  k_tile[li] = vec4<f32>(running_max.x, running_sum.x, running_max.y, running_sum.y);
  workgroupBarrier();
  var row_max = vec2<f32>(NONE);
  for (var r = 0u; r < PARTS; r++) {
    row_max = max(row_max, k_tile[li - part + r].xz);
  }
  var row_sum = vec2<f32>(0.0);
  for (var r = 0u; r < PARTS; r++) {
    let stats = k_tile[li - part + r];
    row_sum += stats.yw * exp(stats.xz - row_max);
  }
  let share = exp(running_max - row_max) / row_sum;
  for (var dd = 0u; dd < HALF4; dd++) {
    o0[dd] *= share.x;
    o1[dd] *= share.y;
  }
  let row = 2u * pair;  // the first of this thread's rows within the block
  for (var r = 1u; r < PARTS; r++) {
    workgroupBarrier();
    if (part == r) {
      for (var dd = 0u; dd < HALF4; dd++) {
        let d = head_vec4(dd, half);
        if (row < KEYS) {
          k_tile[slot(row, d)] = o0[dd];
          k_tile[slot(row + 1u, d)] = o1[dd];
        } else {
          v_tile[slot(row - KEYS, d)] = o0[dd];
          v_tile[slot(row + 1u - KEYS, d)] = o1[dd];
        }
      }
    }
    workgroupBarrier();
    if (part == 0u) {
      for (var dd = 0u; dd < HALF4; dd++) {
        let d = head_vec4(dd, half);
        if (row < KEYS) {
          o0[dd] += k_tile[slot(row, d)];
          o1[dd] += k_tile[slot(row + 1u, d)];
        } else {
          o0[dd] += v_tile[slot(row - KEYS, d)];
          o1[dd] += v_tile[slot(row + 1u - KEYS, d)];
        }
      }
    }
  }
  if (part == 0u) {
    for (var dd = 0u; dd < HALF4; dd++) {
      let column = b.head * HEAD4 + head_vec4(dd, half);
      if (i.x < p.t) {
        out[packed_row.x * width4 + column] = o0[dd];
      }
      if (i.y < p.t) {
        out[packed_row.y * width4 + column] = o1[dd];
      }
    }
  }
}
