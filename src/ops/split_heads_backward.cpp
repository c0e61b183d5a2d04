#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "split_heads_backward";

}  // namespace

Tensor split_heads_backward(const Heads& grads) {
  for (const Tensor* part : {&grads.q, &grads.k, &grads.v}) {
    detail::require_dtype(kOp, "grad", *part, DType::f32);
    detail::require_rank(kOp, "grad", *part, 3);
    if (part->shape() != grads.q.shape()) {
      detail::fail(kOp, "dq " + grads.q.describe() + ", dk " + grads.k.describe() + " and dv " +
                            grads.v.describe() + " differ in shape");
    }
  }
  const size_t n_head = grads.q.dim(0), t = grads.q.dim(1), head_dim = grads.q.dim(2);
  const size_t cols = n_head * head_dim;
  const auto& context = detail::common_context(kOp, {&grads.q, &grads.k, &grads.v});
  Tensor dqkv = detail::new_output(grads.q, {t, 3 * cols});
  if (!context) {
    std::span<const float> parts[3] = {grads.q.floats(), grads.k.floats(), grads.v.floats()};
    auto out = dqkv.floats();
    for (size_t token = 0; token < t; ++token) {
      for (size_t col = 0; col < 3 * cols; ++col) {
        const size_t within = col % cols, head = within / head_dim;
        out[token * 3 * cols + col] =
            parts[col / cols][(head * t + token) * head_dim + within % head_dim];
      }
    }
  } else if (dqkv.numel() > 0) {
    std::array<uint32_t, 4> params = {detail::word(kOp, dqkv.numel()), detail::word(kOp, t),
                                      detail::word(kOp, cols), detail::word(kOp, head_dim)};
    context->dispatch(kOp, params,
                      detail::Bindings(kOp, {grads.q, grads.k, grads.v}, {dqkv}).ranges(),
                      detail::linear_grid(kOp, *context, dqkv.numel()));
  }
  return dqkv;
}

}  // namespace wgpt::ops
