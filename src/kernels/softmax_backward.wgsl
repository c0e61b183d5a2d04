// The gradient of a softmax over rows of `cols` from its output y: dx = y · (dy − Σ y · dy).
// Masked entries of a causal softmax have y = 0 and so get dx = 0: no mask is needed.
// One workgroup of 256 threads per row (rows folded into y past 65535).
struct Params {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

//! include "row_reduce.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= p.rows) {
    return;  // uniform across the workgroup
  }
  let base = row * p.cols;
  var dot = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    dot += y[base + c] * dy[base + c];
  }
  let total = workgroup_sum(lid, dot);
  for (var c = lid; c < p.cols; c += 256u) {
    dx[base + c] = y[base + c] * (dy[base + c] - total);
  }
}
