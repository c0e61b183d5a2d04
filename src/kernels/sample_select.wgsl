// Sampling, one digit of a cut (include/wgpt/sampling.h steps 6–7; lib/sample_search.wgsl): settles
// the previous pass's histogram, then histograms the next 8-bit digit of the rank keys still in
// play — their count, and for top-p their fixed-point mass — per slice into `partials_out`
// [workgroups, 256, 3].
// Thread layout: one workgroup of 256 threads per slice of 1024 logits (ids slice_start + t +
// 256·j). A thread adds its run of equal digits to the workgroup's bins at once (its ids are 256
// apart, and near the top digits most keys share one), so same-bin atomics stay few.
@group(0) @binding(0) var<uniform> params: SearchParams;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read> best: array<u32>;
@group(0) @binding(3) var<storage, read> partials_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> partials_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> searches: array<u32>;

//! include "sample_search.wgsl"

var<workgroup> bin_count: array<atomic<u32>, 256>;
var<workgroup> bin_low: array<atomic<u32>, 256>;
var<workgroup> bin_high: array<atomic<u32>, 256>;

fn add_run(digit: u32, count: u32, mass: vec2<u32>) {
  if (count == 0u) {
    return;
  }
  atomicAdd(&bin_count[digit], count);
  if (params.kind == SEARCH_MASS) {
    let old = atomicAdd(&bin_low[digit], mass.x);
    atomicAdd(&bin_high[digit], mass.y + select(0u, 1u, old + mass.x < old));
  }
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) group: vec3<u32>) {
  let opened = settle_pass(local, group.x);
  let s = opened.search;
  let largest = opened.largest;
  atomicStore(&bin_count[local], 0u);
  atomicStore(&bin_low[local], 0u);
  atomicStore(&bin_high[local], 0u);
  workgroupBarrier();
  let mask = prefix_mask(params.level);
  var run_digit = 0u;
  var run_count = 0u;
  var run_mass = vec2<u32>(0u, 0u);
  let start = group.x * SLICE;
  for (var j = 0u; j < PER_THREAD; j++) {
    let i = start + local + 256u * j;
    if (i < params.vocab) {
      let key = rank_key(z[i]);
      if ((key & mask) == s.prefix && key >= s.cut_key) {
        let digit = digit_of(key, params.level);
        if (digit != run_digit) {
          add_run(run_digit, run_count, run_mass);
          run_digit = digit;
          run_count = 0u;
          run_mass = vec2<u32>(0u, 0u);
        }
        run_count++;
        if (params.kind == SEARCH_MASS) {
          run_mass = add64(run_mass, vec2<u32>(fixed_weight(z[i], largest), 0u));
        }
      }
    }
  }
  add_run(run_digit, run_count, run_mass);
  workgroupBarrier();
  let at = (group.x * 256u + local) * 3u;
  partials_out[at] = atomicLoad(&bin_count[local]);
  partials_out[at + 1u] = atomicLoad(&bin_low[local]);
  partials_out[at + 2u] = atomicLoad(&bin_high[local]);
}
