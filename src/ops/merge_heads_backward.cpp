#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "merge_heads_backward";

}  // namespace

Tensor merge_heads_backward(const Tensor& dy, size_t n_head) {
  detail::require_dtype(kOp, "dy", dy, DType::f32);
  detail::require_rank(kOp, "dy", dy, 2);
  const size_t t = dy.dim(0), cols = dy.dim(1);
  if (n_head == 0 || cols % n_head != 0) {
    detail::fail(
        kOp, "dy " + dy.describe() + " does not split into " + std::to_string(n_head) + " heads");
  }
  const size_t head_dim = cols / n_head;
  Tensor dx = detail::new_output(dy, {n_head, t, head_dim});
  const auto& context = dy.context();
  if (!context) {
    auto in = dy.floats(), out = dx.floats();
    for (size_t head = 0; head < n_head; ++head) {
      for (size_t token = 0; token < t; ++token) {
        for (size_t d = 0; d < head_dim; ++d) {
          out[(head * t + token) * head_dim + d] = in[token * cols + head * head_dim + d];
        }
      }
    }
  } else if (dx.numel() > 0) {
    std::array<uint32_t, 4> params = {detail::word(kOp, dx.numel()), detail::word(kOp, t),
                                      detail::word(kOp, cols), detail::word(kOp, head_dim)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {dy}, {dx}).ranges(),
                      detail::linear_grid(kOp, *context, dx.numel()));
  }
  return dx;
}

}  // namespace wgpt::ops
