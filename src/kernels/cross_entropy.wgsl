// Cross-entropy per row of logits [rows, cols] against targets:
// loss[r] = log Σ_j exp(x[r, j] − max_r) + max_r − x[r, target[r]].
// One workgroup of 256 threads per row (rows folded into y past 65535): max, then the sum.
struct Params {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> loss: array<f32>;

//! include "row_softmax_stats.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= p.rows) {
    return;  // uniform across the workgroup
  }
  let base = row * p.cols;
  let stats = row_softmax_stats(lid, base);  // (max, Σ exp(x − max))
  if (lid == 0u) {
    loss[row] = log(stats.y) + stats.x - x[base + targets[row]];
  }
}
