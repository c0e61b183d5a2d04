// Sampling, one digit of a cut (include/wgpt/sampling.h steps 6–7; lib/sample_search.wgsl): settles
// the previous pass's histogram, then histograms the next 8-bit digit of the rank keys still in
// play, each slice adding into this pass's histogram (lib/sample_histogram.wgsl). One workgroup of
// 256 threads per slice of 1024 logits.
@group(0) @binding(0) var<uniform> params: SearchParams;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read> best: array<u32>;
@group(0) @binding(3) var<storage, read_write> histograms: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> searches: array<u32>;

//! include "sample_search.wgsl"
//! include "sample_histogram.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) group: vec3<u32>) {
  let opened = settle_pass(local, group.x);
  histogram_slice(local, group.x, params.vocab, opened.search, params.kind, params.level,
                  opened.largest, params.slot);
}
