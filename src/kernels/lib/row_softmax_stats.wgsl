// Shared by cross_entropy.wgsl and cross_entropy_backward.wgsl: the softmax statistics of one row
// of logits, which the loss and its gradient both need. The includer declares `x` (the logits)
// and `p.cols`.
//! include "row_reduce.wgsl"

// (max_j x[base + j], Σ_j exp(x[base + j] − max)) over the row's `p.cols` logits, for every
// thread of the row's workgroup.
fn row_softmax_stats(lid: u32, base: u32) -> vec2<f32> {
  var largest = -3.4e38;
  for (var c = lid; c < p.cols; c += 256u) {
    largest = max(largest, x[base + c]);
  }
  let row_max = workgroup_max(lid, largest);
  var sum = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    sum += exp(x[base + c] - row_max);
  }
  return vec2<f32>(row_max, workgroup_sum(lid, sum));
}
