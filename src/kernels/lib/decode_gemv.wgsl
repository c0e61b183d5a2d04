// Shared by the decode kernels: the step's one row vector times a weight matrix W [K, N] in HF's
// Conv1D layout, stored as f32, f16, bf16 or q4 and read eight columns at a time
// (load8_{DTYPE}.wgsl), row-major or in column strips (wgpt::Layout).
// N is a multiple of 8.
//
// A workgroup of 256 threads covers 8·tx consecutive columns: tx threads across them (eight
// columns each) by 256/tx slices down K, slice s taking units s, s + slices, ... (a unit is a row,
// or q4's four: decode_rows_{DTYPE}.wgsl); the slices then meet in slices_sum8 (reduce_*.wgsl),
// both halves of the eight columns in one meeting. A step reads each weight once, and a product
// is so small that its time is the chain of dependent latencies, not its bytes (measured on the
// H200: 96 workgroups doing nothing but start, load and store take 3.4 µs as one of 62 dependent
// dispatches; 3072 × 768 f16 weights added into x, 6.9).
// So a thread issues the loads of its first BATCH rows before anything else (gemv_prefetch), and
// the rest BATCH at a time, each batch's loads all in flight together, and both halves of its
// eight columns meet the other slices' in one reduction. BATCH = 8 (one batch for GPT-2's
// 768-wide products): at 12 the kernels ran 1.1–2.6 µs slower on the H200.
// A warp's 32 threads take 32/tx rows of the same column groups: row-major, each row's 8·tx
// columns lie in a different cache line; in column strips, consecutive rows of a strip are
// consecutive, and the warp's loads touch four lines (f16) instead of 16–32, which the
// multiprocessor's load pipeline handles one by one (q4's extra time per product matches a cycle a
// line on the H200; on an H100 strips decoded GPT-2 124M 4.6% faster in f16, 5.3% in q4:
// docs/benchmarks.md, the twentieth session). A GPU model's matrices are in strips by default.
// The includer declares `weight: array<weight_word>` (the word of decode_rows_{DTYPE}.wgsl) and
// `fn gemv_input(row: u32) -> f32`, the input vector's element `row`: from workgroup memory where
// the includer staged it (a LayerNorm, the attention merge), or straight from a storage buffer
// (the MLP's hidden values).

//! include "decode_rows_{DTYPE}.wgsl"

const BATCH: u32 = 8u;
// A unit of k is UNIT_ROWS rows (decode_rows_{DTYPE}.wgsl: one, or q4's four), read together.
const BATCH_UNITS: u32 = BATCH / UNIT_ROWS;

var<private> ahead: array<weight_unit, BATCH_UNITS>;

// This thread's column group (eight columns) and slice.
struct GemvRole {
  column8: u32,
  slice: u32,
  slices: u32,
}

// The product's workgroups: one per tx column groups.
fn gemv_groups(n8: u32, tx: u32) -> u32 {
  return (n8 + tx - 1u) / tx;
}

fn gemv_role(group: u32, tx: u32) -> GemvRole {
  return GemvRole(group * tx + worker % tx, worker / tx, 256u / tx);
}

// Loads the weights of this thread's first BATCH rows into `ahead`.
fn gemv_prefetch(role: GemvRole, k: u32, n8: u32, strips: bool) {
  let units = k / UNIT_ROWS;
  for (var j = 0u; j < BATCH_UNITS; j++) {
    let unit = role.slice + j * role.slices;
    if (role.column8 < n8 && unit < units) {
      ahead[j] = weight_unit_at(unit, role.column8, k, n8, strips);
    }
  }
}

// The dot products of the input with this thread's eight columns, as two vec4s, valid in the
// threads of worker < tx (slice 0). Threads past the last column only help to reduce.
fn gemv_columns(role: GemvRole, k: u32, n8: u32, tx: u32, strips: bool) -> mat2x4<f32> {
  var sum = mat2x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0));
  let in_range = role.column8 < n8;
  let units = k / UNIT_ROWS;
  for (var j = 0u; j < BATCH_UNITS; j++) {
    let unit = role.slice + j * role.slices;
    if (in_range && unit < units) {
      sum += unit_product(ahead[j], unit_input_at(unit));
    }
  }
  let stride = BATCH_UNITS * role.slices;
  for (var first = role.slice + stride; in_range && first < units; first += stride) {
    var w: array<weight_unit, BATCH_UNITS>;
    var v: array<unit_input, BATCH_UNITS>;
    for (var j = 0u; j < BATCH_UNITS; j++) {
      let unit = min(first + j * role.slices, units - 1u);
      w[j] = weight_unit_at(unit, role.column8, k, n8, strips);
      v[j] = unit_input_at(unit);
    }
    for (var j = 0u; j < BATCH_UNITS; j++) {
      if (first + j * role.slices < units) {
        sum += unit_product(w[j], v[j]);
      }
    }
  }
  return slices_sum8(sum, tx);
}
