// Shared by the GEMM kernels (matmul*, gemv, gemm_reduce): the one parameter block ops/gemm.cpp
// fills for every one of them (its params()).
struct Params {
  m: u32,
  k: u32,
  n: u32,
  batch: u32,
  a_batch_stride: u32,  // elements; 0 broadcasts A over the batch
  b_batch_stride: u32,  // elements; 0 broadcasts B over the batch
  trans_a: u32,         // A stored [k, m]
  trans_b: u32,         // B stored [n, k]
  has_bias: u32,
  scale: f32,
  out_col_offset: u32,
  out_row_stride: u32,
  nsplit: u32,       // split-k: partial sums of k_per_split values each, summed by gemm_reduce
  k_per_split: u32,
  epilogue: u32,     // lib/gemm_epilogue.wgsl's bits: GELU, residual
  // Tensor-core kernels: two f16 (A's in the low half) that multiply the operands before their
  // conversion to f16, keeping small values (gradients) out of f16's subnormals; the product's
  // scale divides them back out.
  operand_scales: u32,
  triangle: u32,  // lib/gemm_triangle.wgsl's TRIANGLE_*, or 0
}

@group(0) @binding(0) var<uniform> p: Params;
// How B is laid out is a variant (LAYOUT), not a parameter: a branch on a parameter kept both
// paths' code in every kernel.
//! include "b_layout_{LAYOUT}.wgsl"
//! include "gemm_triangle.wgsl"
