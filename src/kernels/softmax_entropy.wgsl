// The entropy of softmax(x[r]) per row of x [rows, cols], in nats:
//   H[r] = log S − Σ_j e_j · (x_j − max) / S,  e_j = exp(x_j − max),  S = Σ_j e_j,
// which equals −Σ_j p_j · log p_j without a logarithm per element (a −∞ logit adds nothing).
// One workgroup of 256 threads per row (rows folded into y past 65535): the row's maximum and S,
// then the weighted sum. Any cols ≥ 1.
struct Params {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> entropy: array<f32>;

//! include "row_softmax_stats.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= p.rows) {
    return;  // uniform across the workgroup
  }
  let base = row * p.cols;
  let stats = row_softmax_stats(lid, base);  // (max, S)
  var weighted = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    let shifted = x[base + c] - stats.x;
    let e = exp(shifted);
    if (e > 0.0) {
      weighted += e * shifted;
    }
  }
  let total = workgroup_sum(lid, weighted);
  if (lid == 0u) {
    entropy[row] = log(stats.y) - total / stats.y;
  }
}
