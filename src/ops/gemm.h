#pragma once
// The one batched matrix product behind matmul, the chunked LM head and attention over a KV
// cache. It is described by its geometry rather than by tensor shapes, so a batch can be strided
// (a cache's heads are n_ctx rows apart but only kv_len rows are used) and the output can be a
// column block of a wider matrix (one chunk of the LM head).

#include <cstddef>
#include <optional>
#include <string_view>

#include "wgpt/tensor.h"

namespace wgpt::ops::detail {

struct Gemm {
  size_t batch = 1;
  size_t m = 0, k = 0, n = 0;
  size_t a_batch_stride = 0;  // elements between batches of A; 0 broadcasts A
  size_t b_batch_stride = 0;  // elements between batches of B; 0 broadcasts B
  bool trans_a = false;       // A stored [k, m] per batch
  bool trans_b = false;       // B stored [n, k] per batch
  float scale = 1.0f;
  size_t out_col_offset = 0;   // first column written in each output row
  size_t out_row_stride = 0;   // elements per output row (n unless writing a column block)
  DType b_dtype = DType::f32;  // how B is stored: f32, or packed weights (f16, bf16, q4)
};

// The GPU kernel a product takes: gemv.wgsl for a few rows; else, when the product has enough
// 128×128 blocks, matmul_wide_vec4.wgsl if its operands' rows are whole vec4s and
// matmul_wide.wgsl if not; else matmul.wgsl (64×64 blocks). `storage_offset_alignment` is the
// device's, in bytes. Exposed so that tests can check which kernel their shapes reach.
enum class GemmKernel { vector, tiled, wide, wide_vec4 };
GemmKernel gemm_kernel(const Gemm& geometry, size_t storage_offset_alignment);

// out[(b·m + row)·out_row_stride + out_col_offset + col] = scale · Σ op(A)[row, kk] · op(B)[kk,
// col]
// + bias[col] for every batch b, row and column. All tensors f32 on one device, except B, which may
// be packed weights (f16, bf16, q4: read widened; b_dtype is taken from it); `op` names the caller
// in errors.
void gemm(std::string_view op, const Gemm& geometry, const Tensor& a, const Tensor& b,
          const std::optional<Tensor>& bias, const Tensor& out);

}  // namespace wgpt::ops::detail
