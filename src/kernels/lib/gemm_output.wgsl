// Shared by the tiled GEMM kernels: split-k and where a finished sum goes. Workgroup z runs batch
// z % batch over split z / batch, the k range [split · k_per_split, (split + 1) · k_per_split) cut
// at k. With one split the sum is finished here (lib/gemm_epilogue.wgsl) and lands at
// (batch · m + row) · out_row_stride + out_col_offset + col, a column block of a wider matrix when
// asked; with several, the raw partial sum lands in c = partials [nsplit][batch][m][n] and
// gemm_reduce.wgsl finishes. Needs gemm_params.wgsl and the includer's bindings `bias`, `c` and
// `residual`.
//! include "gemm_epilogue.wgsl"

struct Split {
  batch: u32,
  index: u32,
  k_begin: u32,
  k_end: u32,
}

fn split_of(z: u32) -> Split {
  var s: Split;
  s.batch = z % p.batch;
  s.index = z / p.batch;
  s.k_begin = s.index * p.k_per_split;
  s.k_end = min(p.k, s.k_begin + p.k_per_split);
  return s;
}

// Stores one output element (nothing past m or n; zero where the triangle says so).
fn store_sum(s: Split, row: u32, col: u32, computed: f32) {
  if (row >= p.m || col >= p.n) {
    return;
  }
  let sum = select(0.0, computed, triangle_computes(row, col));
  if (p.nsplit == 1u) {
    let at = (s.batch * p.m + row) * p.out_row_stride + p.out_col_offset + col;
    c[at] = finish(sum, col, at);
  } else {
    c[((s.index * p.batch + s.batch) * p.m + row) * p.n + col] = sum;
  }
}
