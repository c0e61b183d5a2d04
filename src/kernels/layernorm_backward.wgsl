// LayerNorm's input gradient over rows of `cols`, the statistics recomputed from x as the forward
// computes them (mean first, then the biased variance around it):
//   x̂ = (x − mean) · inv_std, g = dy · gamma,
//   dx = inv_std · (g − mean(g) − x̂ · mean(g · x̂)),
// and dy · x̂, whose column sums the host takes for gamma's gradient (beta's is the column sums of
// dy). One workgroup of 256 threads per row (rows folded into y past 65535).
struct Params {
  rows: u32,
  cols: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> dy: array<f32>;
@group(0) @binding(4) var<storage, read_write> dx: array<f32>;
@group(0) @binding(5) var<storage, read_write> dy_xhat: array<f32>;

//! include "row_reduce.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= p.rows) {
    return;  // uniform across the workgroup: no barrier is skipped by only some threads
  }
  let base = row * p.cols;
  let n = f32(p.cols);
  var sum = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    sum += x[base + c];
  }
  let mean = workgroup_sum(lid, sum) / n;
  var squares = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    let d = x[base + c] - mean;
    squares += d * d;
  }
  let inv_std = inverseSqrt(workgroup_sum(lid, squares) / n + p.eps);
  var g_sum = 0.0;
  var g_xhat_sum = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    let g = dy[base + c] * gamma[c];
    g_sum += g;
    g_xhat_sum += g * (x[base + c] - mean) * inv_std;
  }
  let g_mean = workgroup_sum(lid, g_sum) / n;
  let g_xhat_mean = workgroup_sum(lid, g_xhat_sum) / n;
  for (var c = lid; c < p.cols; c += 256u) {
    let xhat = (x[base + c] - mean) * inv_std;
    let grad = dy[base + c];
    dx[base + c] = inv_std * (grad * gamma[c] - g_mean - xhat * g_xhat_mean);
    dy_xhat[base + c] = grad * xhat;
  }
}
