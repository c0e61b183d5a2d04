// Shared by the decode kernels: one row vector times a weight matrix W [K, N] stored row-major as
// vec4 columns (HF's Conv1D layout), for the single position of a decode step.
//
// A workgroup of 256 threads covers 4·tx consecutive columns: tx threads across the columns (one
// vec4 each) by 256/tx "slices" down K, each slice summing every (256/tx)-th row; the slices are
// then added in workgroup memory. Narrow matrices use a small tx so that enough workgroups run.
// A step reads each weight once and nothing else from memory, so it is bound by how many weight
// loads are in flight: each thread keeps eight independent rows in flight (eight accumulators),
// and the input vector is staged in workgroup memory (computed once per workgroup, e.g. a
// LayerNorm) so the loop issues weight loads only.
// The includer declares `weight: array<vec4<f32>>` and `fn input_at(k: u32) -> f32`.

const GEMV_STAGE: u32 = 2048u;  // input values staged at a time (8 KiB)

var<workgroup> gemv_input: array<f32, GEMV_STAGE>;
var<workgroup> gemv_partial: array<vec4<f32>, 256>;

// The dot products for this thread's four columns; valid in threads of slice 0 only.
// `column4` is the vec4 column index (it may be past the end: those threads only help reduce).
fn gemv_columns(local: u32, column4: u32, k: u32, n4: u32, tx: u32) -> vec4<f32> {
  let slices = 256u / tx;
  let slice = local / tx;
  let stride = slices * n4;  // between a slice's consecutive rows, in vec4s
  var s0 = vec4<f32>(0.0);
  var s1 = vec4<f32>(0.0);
  var s2 = vec4<f32>(0.0);
  var s3 = vec4<f32>(0.0);
  var s4 = vec4<f32>(0.0);
  var s5 = vec4<f32>(0.0);
  var s6 = vec4<f32>(0.0);
  var s7 = vec4<f32>(0.0);
  for (var base = 0u; base < k; base += GEMV_STAGE) {
    let rows = min(GEMV_STAGE, k - base);
    workgroupBarrier();  // the previous stage's values are no longer read
    for (var i = local; i < rows; i += 256u) {
      gemv_input[i] = input_at(base + i);
    }
    workgroupBarrier();
    if (column4 < n4) {
      var row = slice;
      var at = (base + row) * n4 + column4;
      for (; row + 7u * slices < rows; row += 8u * slices) {
        s0 += gemv_input[row] * weight[at];
        s1 += gemv_input[row + slices] * weight[at + stride];
        s2 += gemv_input[row + 2u * slices] * weight[at + 2u * stride];
        s3 += gemv_input[row + 3u * slices] * weight[at + 3u * stride];
        s4 += gemv_input[row + 4u * slices] * weight[at + 4u * stride];
        s5 += gemv_input[row + 5u * slices] * weight[at + 5u * stride];
        s6 += gemv_input[row + 6u * slices] * weight[at + 6u * stride];
        s7 += gemv_input[row + 7u * slices] * weight[at + 7u * stride];
        at += 8u * stride;
      }
      for (; row < rows; row += slices) {
        s0 += gemv_input[row] * weight[at];
        at += stride;
      }
    }
  }
  gemv_partial[local] = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
  // Barrier first in each step: llvmpipe miscompiles a read of workgroup memory that is followed
  // by a barrier before its use.
  for (var step = slices / 2u; step > 0u; step /= 2u) {
    workgroupBarrier();
    if (slice < step) {
      gemv_partial[local] += gemv_partial[local + step * tx];
    }
  }
  workgroupBarrier();
  return gemv_partial[local];
}
