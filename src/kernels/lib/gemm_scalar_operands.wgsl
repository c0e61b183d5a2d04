// Shared by the GEMM kernels that read their operands one float at a time: the operands A (f32)
// and B (weights: f32, f16, bf16 or q4, the includer's DTYPE variant), and one element of op(A)
// or op(B) by (row, k) or (k, column) in any layout, zero past m, n or k_end (the end of the k
// split being summed) and where the product's triangle makes op(A) zero. Needs gemm_params.wgsl
// included first.
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<b_word>;
//! include "load1_{DTYPE}.wgsl" for b

fn load_a(batch: u32, row: u32, kk: u32, k_end: u32) -> f32 {
  if (row >= p.m || kk >= k_end || !triangle_reads_a(row, kk)) {
    return 0.0;
  }
  let base = batch * p.a_batch_stride;
  if (p.trans_a != 0u) {
    return a[base + kk * p.m + row];
  }
  return a[base + row * p.k + kk];
}

fn load_b(batch: u32, kk: u32, col: u32, k_end: u32) -> f32 {
  if (kk >= k_end || col >= p.n) {
    return 0.0;
  }
  if (B_STRIPS) {
    return b_strip_at(kk, col, p.k, p.n);
  }
  let base = batch * p.b_batch_stride;
  if (p.trans_b != 0u) {
    return b_at(base + col * p.k + kk);
  }
  return b_at(base + kk * p.n + col);
}
