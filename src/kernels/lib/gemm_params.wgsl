// Shared by the GEMM kernels (matmul, matmul_wide, matmul_wide_vec4, gemv, gemv_reduce): the one
// parameter block ops/gemm.cpp fills for every one of them (the 16 words of its params()).
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
  nsplit: u32,       // gemv only
  k_per_split: u32,  // gemv only
}

@group(0) @binding(0) var<uniform> p: Params;
