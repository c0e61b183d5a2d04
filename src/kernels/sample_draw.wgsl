// Sampling, the kept mass per slice (include/wgpt/sampling.h steps 8–9): settles the last cut
// (lib/sample_search.wgsl; none when neither top-k nor top-p applies: every token is in), then
// sums, per slice, the fixed-point weights of the kept tokens with a key above the cut and counts
// the tokens at the cut's key, all passing min-p (w ≥ min_p) → `kept` [workgroups, 3] (ties,
// mass low, mass high). sample_pick decides which of the ties are kept and draws.
// Thread layout: one workgroup of 256 threads per slice of 1024 logits (ids slice_start + t +
// 256·j).
@group(0) @binding(0) var<uniform> params: SearchParams;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read> best: array<u32>;
@group(0) @binding(3) var<storage, read_write> histograms: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> kept: array<u32>;
@group(0) @binding(5) var<storage, read_write> searches: array<u32>;

//! include "sample_search.wgsl"
//! include "sample_histogram.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) group: vec3<u32>) {
  let opened = settle_pass(local, group.x);
  let s = opened.search;
  let largest = opened.largest;
  var ties = 0u;
  var mass = vec2<u32>(0u, 0u);
  let start = group.x * SLICE;
  for (var j = 0u; j < PER_THREAD; j++) {
    let i = start + local + 256u * j;
    if (i < params.vocab) {
      let key = rank_key(z[i]);
      if (key >= s.cut_key && exp(z[i] - largest) >= params.min_p) {
        if (key == s.cut_key) {
          ties++;
        } else {
          mass = add64(mass, vec2<u32>(fixed_weight(z[i], largest), 0u));
        }
      }
    }
  }
  let sums = workgroup_scan(local, ties, mass);
  if (local == 0u) {
    kept[group.x * 3u] = sums.total_count;
    kept[group.x * 3u + 1u] = sums.total_mass.x;
    kept[group.x * 3u + 2u] = sums.total_mass.y;
  }
}
