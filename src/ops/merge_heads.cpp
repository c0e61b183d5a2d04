#include <array>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "merge_heads";

}  // namespace

Tensor merge_heads(const Tensor& x) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_rank(kOp, "x", x, 3);
  size_t n_head = x.dim(0);
  size_t t = x.dim(1);
  size_t head_dim = x.dim(2);
  size_t cols = n_head * head_dim;
  Tensor out = detail::new_output(x, {t, cols});
  const auto& context = x.context();
  if (!context) {
    auto in = x.floats(), merged = out.floats();
    for (size_t token = 0; token < t; ++token) {
      for (size_t col = 0; col < cols; ++col) {
        size_t head = col / head_dim;
        merged[token * cols + col] = in[(head * t + token) * head_dim + col % head_dim];
      }
    }
  } else if (out.numel() > 0) {
    std::array<uint32_t, 4> params = {detail::word(kOp, out.numel()), detail::word(kOp, t),
                                      detail::word(kOp, cols), detail::word(kOp, head_dim)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x}, {out}).ranges(),
                      detail::linear_grid(kOp, *context, out.numel()));
  }
  return out;
}

}  // namespace wgpt::ops
