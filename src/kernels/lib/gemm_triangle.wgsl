// Shared by the GEMM kernels (through gemm_params.wgsl): a product triangular in op(A) or in C,
// square in each batch (ops::Triangle, p.triangle; 0 for none). The tiled kernels skip the part of k
// where a block's op(A) is zero by the triangle, or a whole block of C above the diagonal, and read
// op(A)'s zeros as zeros whatever is stored there, so that a triangular product is the same sum as
// the full one over the zeros (an attention's causal scores and probabilities: about half the work).
const TRIANGLE_LOWER_OUTPUT: u32 = 1u;  // C[row, col] = 0 for col > row
const TRIANGLE_LOWER_A: u32 = 2u;       // op(A)[row, kk] = 0 for kk > row
const TRIANGLE_UPPER_A: u32 = 3u;       // op(A)[row, kk] = 0 for kk < row

// Whether the triangle lies in op(A) (so that its loads need triangle_reads_a).
fn triangle_in_a() -> bool {
  return p.triangle == TRIANGLE_LOWER_A || p.triangle == TRIANGLE_UPPER_A;
}

// Whether op(A)[row, kk] is read rather than zero by the triangle.
fn triangle_reads_a(row: u32, kk: u32) -> bool {
  return !((p.triangle == TRIANGLE_LOWER_A && kk > row) ||
           (p.triangle == TRIANGLE_UPPER_A && kk < row));
}

// Whether C[row, col] is computed rather than zero by the triangle.
fn triangle_computes(row: u32, col: u32) -> bool {
  return p.triangle != TRIANGLE_LOWER_OUTPUT || col <= row;
}

// The part of the k range [k_begin, k_end) that a block of C (rows row0.., columns col0.., `size`
// each) needs, as [x, y): none for a block wholly above a lower output's diagonal, up to the
// block's last row for a lower op(A), from its first row for an upper op(A). Uniform over a
// workgroup; row0 is a multiple of the kernel's k tile, so the range starts on one.
fn triangle_k_range(k_begin: u32, k_end: u32, row0: u32, col0: u32, size: u32) -> vec2<u32> {
  var range = vec2<u32>(k_begin, k_end);
  if (p.triangle == TRIANGLE_LOWER_OUTPUT && col0 >= row0 + size) {
    range.y = k_begin;
  }
  if (p.triangle == TRIANGLE_LOWER_A) {
    range.y = min(k_end, row0 + size);
  }
  if (p.triangle == TRIANGLE_UPPER_A) {
    range.x = max(k_begin, row0);
  }
  range.y = max(range.x, range.y);
  return range;
}
