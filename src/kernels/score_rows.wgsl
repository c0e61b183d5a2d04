// Scoring (ops::score_rows): per row of logits [rows, vocab] against targets [rows], stats[row] =
// (−log2 softmax(row)[target], max, Σ exp(x − max)) and the k largest logits as (id, logit bits)
// pairs in top[row] [k, 2], in no particular order; at the k-th value, the lowest ids.
// Thread layout: one workgroup of 256 threads per row (rows folded into y past the grid's limit),
// threads strided over the row. The k-th largest rank key is found by a radix search, one byte
// per pass, top byte first: a 256-bin histogram of the keys still in play (the first pass also
// takes each thread's running max and sum of exponentials), then a scan in rank order finds the
// byte where the running count reaches what is still needed. A last pass gathers the keys above
// the cut into slots taken by an atomic counter, and the ties at the cut: all of them, or when
// only some are kept, the lowest ids, each thread then walking a contiguous run of the row.
// Assumes 0 ≤ k ≤ vocab and targets < vocab.
struct Params {
  rows: u32,
  vocab: u32,
  k: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> stats: array<f32>;
@group(0) @binding(4) var<storage, read_write> top: array<u32>;

//! include "row_reduce.wgsl"
//! include "sample_common.wgsl"
//! include "workgroup_scan.wgsl"

var<workgroup> bins: array<atomic<u32>, 256>;
var<workgroup> slot: atomic<u32>;
// The search: (prefix of chosen bytes, ranks still needed below it, tokens in the chosen bin).
var<workgroup> cut: vec3<u32>;

fn clear_bins(local: u32) {
  workgroupBarrier();  // the previous histogram has been read
  atomicStore(&bins[local], 0u);
  workgroupBarrier();
}

// A thread's run of equal bytes, added to the bins at once (near the top bytes most keys share
// one, so same-bin atomics stay few).
struct Run {
  digit: u32,
  count: u32,
}

fn flush_run(run: Run) {
  if (run.count > 0u) {
    atomicAdd(&bins[run.digit], run.count);
  }
}

fn extend_run(run: ptr<function, Run>, digit: u32) {
  if (digit != (*run).digit) {
    flush_run(*run);
    *run = Run(digit, 0u);
  }
  (*run).count++;
}

fn byte_of(key: u32, level: u32) -> u32 {
  return (key >> (24u - 8u * level)) & 255u;
}

fn in_play(key: u32, prefix: u32, level: u32) -> bool {
  return level == 0u || (key >> (32u - 8u * level)) == (prefix >> (32u - 8u * level));
}

fn histogram(local: u32, base: u32, level: u32, prefix: u32) {
  var run = Run(0u, 0u);
  for (var i = local; i < params.vocab; i += 256u) {
    let key = rank_key(logits[base + i]);
    if (in_play(key, prefix, level)) {
      extend_run(&run, byte_of(key, level));
    }
  }
  flush_run(run);
}

// The byte where the running count, highest byte first, reaches the ranks still needed.
fn settle(local: u32, level: u32, prefix: u32, need: u32) -> vec3<u32> {
  let digit = 255u - local;  // thread order is rank order
  workgroupBarrier();        // the histogram is complete
  let count = atomicLoad(&bins[digit]);
  let sums = workgroup_scan(local, count, vec2<u32>(0u, 0u));
  let before = sums.count - count;
  if (before < need && need <= sums.count) {
    cut = vec3<u32>(prefix | (digit << (24u - 8u * level)), need - before, count);
  }
  workgroupBarrier();
  return cut;
}

fn gather(row: u32, i: u32, value: f32) {
  let at = (row * params.k + atomicAdd(&slot, 1u)) * 2u;
  top[at] = i;
  top[at + 1u] = bitcast<u32>(value);
}

fn top_k(local: u32, row: u32, base: u32) {
  // Every key is in when k is the whole row: a cut below the lowest key.
  var found = vec3<u32>(0u, params.vocab, params.vocab);
  if (params.k < params.vocab) {
    found = settle(local, 0u, 0u, params.k);
    for (var level = 1u; level < 4u; level++) {
      clear_bins(local);
      histogram(local, base, level, found.x);
      found = settle(local, level, found.x, found.y);
    }
  }
  let every_tie = found.y == found.z;
  if (local == 0u) {
    atomicStore(&slot, 0u);
  }
  workgroupBarrier();
  for (var i = local; i < params.vocab; i += 256u) {
    let value = logits[base + i];
    let key = rank_key(value);
    if (key > found.x || (key == found.x && every_tie)) {
      gather(row, i, value);
    }
  }
  // Only some of the ties are kept: the lowest ids, each thread over a contiguous run.
  let run = (params.vocab + 255u) / 256u;
  let first = local * run;
  let end = min(first + run, params.vocab);
  var ties = 0u;
  if (!every_tie) {
    for (var i = first; i < end; i++) {
      ties += select(0u, 1u, rank_key(logits[base + i]) == found.x);
    }
  }
  let sums = workgroup_scan(local, ties, vec2<u32>(0u, 0u));
  if (!every_tie) {
    var rank = sums.count - ties;
    for (var i = first; i < end && rank < found.y; i++) {
      let value = logits[base + i];
      if (rank_key(value) == found.x) {
        gather(row, i, value);
        rank++;
      }
    }
  }
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let row = group.y * groups.x + group.x;
  if (row >= params.rows) {
    return;
  }
  let base = row * params.vocab;
  // Each thread's running max and sum of exponentials, and the first byte's histogram.
  clear_bins(local);
  var largest = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  var sum = 0.0;
  var run = Run(0u, 0u);
  for (var i = local; i < params.vocab; i += 256u) {
    let x = logits[base + i];
    if (x > largest) {
      sum = sum * exp(largest - x) + 1.0;
      largest = x;
    } else {
      sum += exp(x - largest);
    }
    extend_run(&run, byte_of(rank_key(x), 0u));
  }
  flush_run(run);
  let row_max = workgroup_max(local, largest);
  let row_sum = workgroup_sum(local, sum * exp(largest - row_max));
  if (local == 0u) {
    let target_logit = logits[base + targets[row]];
    stats[row * 3u] = (row_max + log(row_sum) - target_logit) * 1.4426950408889634;
    stats[row * 3u + 1u] = row_max;
    stats[row * 3u + 2u] = row_sum;
  }
  if (params.k > 0u) {
    top_k(local, row, base);
  }
}
