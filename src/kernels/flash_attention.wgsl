// Causal self-attention of prompts in one pass (flash attention): for query i of sequence s
// (absolute position offset + i) and head h,
//   out[s·t + i, h·64 + d] = Σ_{j ≤ offset + i} softmax_j(scale · q_i · k_j) · v[s, h, j, d],
// with q_i = qkv[s·t + i, h·64 .. h·64 + 63] (the fused projection [sequences·t, 3C], queries
// first). Where the keys and values sit is given by strides, so that one kernel reads them from a
// KV cache [n_head, n_ctx, 64] (one sequence, whose cache already holds its keys and values) or
// straight from the projection's k and v blocks (sequences packed one after another, offset 0: a
// scored text's windows, which keep no cache). The softmax is kept online (a running maximum and
// sum per row, the output rescaled when the maximum grows): nothing of size t × kv_len is stored.
// Assumes head_dim 64.
//
// Workgroup (block of 64 query rows, head, sequence): 256 threads, four per row. Keys and values
// go through workgroup memory in tiles of 32 (lib/flash_attention_tiles.wgsl); the next tile is
// fetched into registers before the current one is used, so its latency hides behind the tile's
// work (a workgroup of this kernel's registers may be the only one on its multiprocessor, with
// nothing else to run while it waits). flash_attention_pairs.wgsl is the form for adapters with
// subgroups, which reads workgroup memory half as often; flash_attention_quarters.wgsl another,
// which holds fewer values a thread (ops::causal_attention_kernel chooses).
// Thread (row, part) scores keys part, part + 4, .. of each tile against its row (read once into
// registers, pre-scaled), with its own running maximum, sum and 64 output sums; threads of a
// subgroup that share a part read the same key (a broadcast). At the end the four parts of a row
// merge through the same workgroup memory.
//
// Grid (n_head, ceil(t / 64), sequences), the blocks of rows numbered from the last: a block's work
// grows with its row (causal), and GPUs start workgroups in the order of their index, x first, so
// the longest blocks of every head start first and the short ones fill in behind them. (Blocks in
// order left a long prompt's last heads' longest blocks to start after a first round of workgroups,
// and the pass to end ~1.4 longest blocks after its start instead of one, where an H200 holds one
// of these workgroups per multiprocessor: measured there, 1,024 rows of 12 heads took 186 µs
// instead of 266.)
//! include "flash_attention_tiles.wgsl"

const KEY_ROTATION: u32 = 1u;  // four consecutive keys read at once: distinct banks

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let b = block_of(wid, groups);
  let row = li / PARTS;  // this thread's query row within the block
  let part = li % PARTS;
  let i = b.first_row + row;  // and within its sequence
  let packed_row = b.sequence * p.t + i;  // its row of qkv and out
  let width4 = p.n_head * HEAD4;  // vec4s per row of the attention's output
  var q: array<vec4<f32>, HEAD4>;
  if (i < p.t) {
    for (var d = 0u; d < HEAD4; d++) {
      q[d] = qkv[packed_row * 3u * width4 + b.head * HEAD4 + d] * p.scale;
    }
  }
  var o: array<vec4<f32>, HEAD4>;
  var running_max = NONE;
  var running_sum = 0.0;
  let visible = p.offset + i + 1u;  // keys j < visible
  var staged = fetch_tile(b.head_keys, 0u, b.keys_end, li);
  for (var k0 = 0u; k0 < b.keys_end; k0 += KEYS) {
    staged = advance_tile(staged, b, k0, li);
    var scores: array<f32, KEYS / PARTS>;
    var tile_max = NONE;
    for (var c = 0u; c < KEYS / PARTS; c++) {
      let key = c * PARTS + part;
      var dot_product = 0.0;
      for (var d = 0u; d < HEAD4; d++) {
        dot_product += dot(q[d], k_tile[slot(key, d)]);
      }
      scores[c] = select(NONE, dot_product, k0 + key < visible);
      tile_max = max(tile_max, scores[c]);
    }
    let new_max = max(running_max, tile_max);
    let rescale = exp(running_max - new_max);
    running_sum *= rescale;
    for (var d = 0u; d < HEAD4; d++) {
      o[d] *= rescale;
    }
    for (var c = 0u; c < KEYS / PARTS; c++) {
      let key = c * PARTS + part;
      let weight = select(0.0, exp(scores[c] - new_max), k0 + key < visible);
      running_sum += weight;
      for (var d = 0u; d < HEAD4; d++) {
        o[d] += weight * v_tile[slot(key, d)];
      }
    }
    running_max = new_max;
  }
  // Merge the four parts of each row. Each scales its outputs by its share of the row's softmax
  // (its sum against the row's maximum, over the row's total), then part 0 adds the other three's,
  // one part at a time, rows 0..31 through k_tile and 32..63 through v_tile. (Every workgroup read
  // is used before the next barrier.)
  workgroupBarrier();
  k_tile[li] = vec4<f32>(running_max, running_sum, 0.0, 0.0);
  workgroupBarrier();
  var row_max = NONE;
  for (var r = 0u; r < PARTS; r++) {
    row_max = max(row_max, k_tile[row * PARTS + r].x);
  }
  var row_sum = 0.0;
  for (var r = 0u; r < PARTS; r++) {
    let stats = k_tile[row * PARTS + r];
    row_sum += stats.y * exp(stats.x - row_max);
  }
  let share = exp(running_max - row_max) / row_sum;
  for (var d = 0u; d < HEAD4; d++) {
    o[d] *= share;
  }
  for (var r = 1u; r < PARTS; r++) {
    workgroupBarrier();
    if (part == r) {
      for (var d = 0u; d < HEAD4; d++) {
        if (row < KEYS) {
          k_tile[slot(row, d)] = o[d];
        } else {
          v_tile[slot(row - KEYS, d)] = o[d];
        }
      }
    }
    workgroupBarrier();
    if (part == 0u) {
      for (var d = 0u; d < HEAD4; d++) {
        if (row < KEYS) {
          o[d] += k_tile[slot(row, d)];
        } else {
          o[d] += v_tile[slot(row - KEYS, d)];
        }
      }
    }
  }
  if (part == 0u && i < p.t) {
    for (var d = 0u; d < HEAD4; d++) {
      out[packed_row * width4 + b.head * HEAD4 + d] = o[d];
    }
  }
}
