// Σ x² over blocks of 4096 elements: workgroup w writes the sum of its block to
// partials[partial_offset + w]; the host lays the blocks of several tensors side by side in one
// partials buffer and sums them with sum_rows. Grid (blocks, 1, 1), folded into y past 65535.
struct Params {
  n: u32,
  partial_offset: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;

const BLOCK: u32 = 4096u;

//! include "row_reduce.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let block = wid.y * nwg.x + wid.x;
  if (block * BLOCK >= p.n) {
    return;  // uniform across the workgroup
  }
  var sum = 0.0;
  for (var i = block * BLOCK + lid; i < min((block + 1u) * BLOCK, p.n); i += 256u) {
    sum += x[i] * x[i];
  }
  let total = workgroup_sum(lid, sum);
  if (lid == 0u) {
    partials[p.partial_offset + block] = total;
  }
}
