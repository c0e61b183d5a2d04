#include <string>

#include "ops/gemm.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "matmul_transposed_chunks";

}  // namespace

Tensor matmul_transposed_chunks(const Tensor& a, const std::vector<Tensor>& b_row_chunks,
                                float scale, bool row_invariant) {
  detail::require_rank(kOp, "a", a, 2);
  if (b_row_chunks.empty()) detail::fail(kOp, "no chunks of b");
  size_t m = a.dim(0);
  size_t k = a.dim(1);
  size_t n = 0;
  for (const Tensor& chunk : b_row_chunks) {
    detail::require_rank(kOp, "each chunk of b", chunk, 2);
    if (chunk.dim(1) != k) {
      detail::fail(kOp, "a " + a.describe() + " needs chunks of " + std::to_string(k) +
                            " columns, got " + chunk.describe());
    }
    n += chunk.dim(0);
  }
  Shape out_shape{m, n};
  Tensor out = detail::new_output(a, out_shape);
  size_t first_col = 0;
  for (const Tensor& chunk : b_row_chunks) {
    detail::Gemm geometry{.m = m,
                          .k = k,
                          .n = chunk.dim(0),
                          .trans_b = true,
                          .scale = scale,
                          .out_col_offset = first_col,
                          .out_row_stride = n,
                          .row_invariant = row_invariant};
    detail::gemm(kOp, geometry, a, chunk, {}, out);
    first_col += chunk.dim(0);
  }
  return out;
}

}  // namespace wgpt::ops
