// Shared by the decode kernels: the step's one row vector times a weight matrix W [K, N] in HF's
// Conv1D layout (row-major), stored as f32, f16, bf16 or q4 and read eight columns at a time
// (load8_{DTYPE}.wgsl). N is a multiple of 8.
//
// A workgroup of 256 threads covers 8·tx consecutive columns: tx threads across them (eight
// columns each) by 256/tx slices down K, slice s summing rows s, s + slices, ...; the slices then
// meet in slices_sum (reduce_*.wgsl). A step reads each weight once, so a product is bound by how
// many weight loads are in flight and by the chain of dependent steps around them. So each thread
// issues the loads of its first eight rows (gemv_prefetch) before anything else — their latency
// then overlaps the input's preparation — and the rest eight at a time, and the input is staged in
// workgroup memory (decode_stage.wgsl) so the loop issues weight loads only.
// The includer declares `weight: array<weight_word>` and `fn stage_input(base: u32, rows: u32)`,
// which fills staged[0 .. rows) with input rows [base, base + rows) (a LayerNorm, the attention
// merge, a copy); it is called once per stage of STAGE rows, by every thread.

var<private> ahead: array<mat2x4<f32>, 8>;

// This thread's column group (eight columns) and slice.
struct GemvRole {
  column8: u32,
  slice: u32,
  slices: u32,
}

fn gemv_role(group: u32, tx: u32) -> GemvRole {
  return GemvRole(group * tx + worker % tx, worker / tx, 256u / tx);
}

// Loads the first eight rows of this thread (of the first stage) into `ahead`.
fn gemv_prefetch(role: GemvRole, k: u32, n8: u32) {
  let rows = min(k, STAGE);
  for (var j = 0u; j < 8u; j++) {
    let row = role.slice + j * role.slices;
    if (role.column8 < n8 && row < rows) {
      ahead[j] = weight_at8(row * n8 + role.column8);
    }
  }
}

// The dot products of the input with this thread's eight columns, as two vec4s, valid in the
// threads of worker < tx (slice 0). Threads past the last column only help to reduce.
fn gemv_columns(role: GemvRole, k: u32, n8: u32, tx: u32) -> mat2x4<f32> {
  var sum = mat2x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0));
  let in_range = role.column8 < n8;
  for (var base = 0u; base < k; base += STAGE) {
    let rows = min(STAGE, k - base);
    workgroupBarrier();  // the previous stage's values are no longer read
    stage_input(base, rows);
    workgroupBarrier();
    var row = role.slice;
    if (base == 0u) {
      for (var j = 0u; j < 8u; j++) {
        if (in_range && row < rows) {
          sum += staged[row] * ahead[j];
        }
        row += role.slices;
      }
    }
    for (; in_range && row < rows; row += 8u * role.slices) {
      // Eight independent loads in flight, then their products.
      var w: array<mat2x4<f32>, 8>;
      for (var j = 0u; j < 8u; j++) {
        let r = min(row + j * role.slices, rows - 1u);
        w[j] = weight_at8((base + r) * n8 + role.column8);
      }
      for (var j = 0u; j < 8u; j++) {
        if (row + j * role.slices < rows) {
          sum += staged[row + j * role.slices] * w[j];
        }
      }
    }
  }
  return mat2x4<f32>(slices_sum(sum[0], tx), slices_sum(sum[1], tx));
}
