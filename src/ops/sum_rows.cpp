// sum_rows: the column sums that make a bias's gradient (and finish every other reduction here).
#include <algorithm>
#include <array>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "sum_rows";
// Rows summed serially per thread in one pass (more when the blocks would overflow the grid);
// passes repeat on the block sums until one row is left (8192 rows: 128 → 2 → 1).
constexpr size_t kRowsPerBlock = 64;

}  // namespace

Tensor sum_rows(const Tensor& x) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_rank(kOp, "x", x, 2);
  const size_t rows = x.dim(0), cols = x.dim(1);
  if (rows == 0 || cols == 0) detail::fail(kOp, "cannot sum the empty " + x.describe());
  Tensor out = detail::new_output(x, {cols});
  const auto& context = x.context();
  if (!context) {
    auto in = x.floats(), sums = out.floats();
    for (size_t col = 0; col < cols; ++col) {
      double sum = 0.0;
      for (size_t row = 0; row < rows; ++row) sum += in[row * cols + col];
      sums[col] = static_cast<float>(sum);
    }
    return out;
  }
  gpu::Scope scope(*context);
  Tensor partial = x;
  for (size_t remaining = rows;;) {
    const size_t max_blocks = context->limits().max_workgroups_per_dimension;
    const size_t per_block = std::max(kRowsPerBlock, (remaining + max_blocks - 1) / max_blocks);
    const size_t blocks = (remaining + per_block - 1) / per_block;
    Tensor target = blocks == 1 ? out : Tensor::empty_gpu(context, {blocks, cols});
    std::array<uint32_t, 3> params = {detail::word(kOp, remaining), detail::word(kOp, cols),
                                      detail::word(kOp, per_block)};
    gpu::Workgroups grid{detail::word(kOp, (cols + 255) / 256), detail::word(kOp, blocks), 1};
    context->dispatch(kOp, params, detail::Bindings(kOp, {partial}, {target}).ranges(), grid);
    if (blocks == 1) return out;
    partial = target;
    remaining = blocks;
  }
}

}  // namespace wgpt::ops
