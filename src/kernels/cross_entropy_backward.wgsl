// Cross-entropy's gradient per row of logits [rows, cols]:
// dx[r, j] = (exp(x[r, j] − max_r) / Σ_k exp(x[r, k] − max_r) − [j = target[r]]) · dloss[r].
// One workgroup of 256 threads per row (rows folded into y past 65535): max, sum, write.
struct Params {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read> dloss: array<f32>;
@group(0) @binding(4) var<storage, read_write> dx: array<f32>;

//! include "row_softmax_stats.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= p.rows) {
    return;  // uniform across the workgroup
  }
  let base = row * p.cols;
  let stats = row_softmax_stats(lid, base);
  let row_max = stats.x;
  let scale = dloss[row] / stats.y;
  let target_id = targets[row];
  for (var c = lid; c < p.cols; c += 256u) {
    var grad = exp(x[base + c] - row_max) * scale;
    if (c == target_id) {
      grad -= dloss[row];
    }
    dx[base + c] = grad;
  }
}
