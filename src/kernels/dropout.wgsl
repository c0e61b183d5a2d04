// Inverted dropout, elementwise (ops::dropout): y = x · scale where the element is kept, else 0,
// scale = 1 / (1 − p) from the host. Element i is kept iff u ≥ p, u = the top 24 bits of
// lowbias32(lowbias32(i ^ key_lo) ^ key_hi) over 2²⁴, the key the host's hash of (seed, step,
// site): the CPU reference draws the same bits, so the masks agree exactly.
struct Params {
  n: u32,
  p: f32,
  scale: f32,
  key_lo: u32,
  key_hi: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

//! include "counter_hash.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let u = f32(counter_word(p.key_lo, p.key_hi, i) >> 8u) * (1.0 / 16777216.0);
  y[i] = select(0.0, x[i] * p.scale, u >= p.p);
}
