// Shared by the decode kernels: one row vector times a weight matrix W [K, N] stored row-major as
// vec4 columns (HF's Conv1D layout), for the single position of a decode step.
//
// A workgroup of 256 threads covers 4·tx consecutive columns: tx threads across the columns (one
// vec4 each) by 256/tx "slices" down K, each slice summing every (256/tx)-th row; the slices are
// then added in workgroup memory. Narrow matrices use a small tx so that enough workgroups run.
// The includer declares `weight: array<vec4<f32>>` and `fn input_at(k: u32) -> f32`.

var<workgroup> gemv_partial: array<vec4<f32>, 256>;

// The dot products for this thread's four columns; valid in threads of slice 0 only.
// `column4` is the vec4 column index (it may be past the end: those threads only help reduce).
fn gemv_columns(local: u32, column4: u32, k: u32, n4: u32, tx: u32) -> vec4<f32> {
  let slices = 256u / tx;
  let slice = local / tx;
  var sum = vec4<f32>(0.0);
  if (column4 < n4) {
    for (var row = slice; row < k; row += slices) {
      sum += input_at(row) * weight[row * n4 + column4];
    }
  }
  gemv_partial[local] = sum;
  // Barrier first in each step: llvmpipe miscompiles a read of workgroup memory that is followed
  // by a barrier before its use.
  for (var stride = slices / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (slice < stride) {
      gemv_partial[local] += gemv_partial[local + stride * tx];
    }
  }
  workgroupBarrier();
  return gemv_partial[local];
}
