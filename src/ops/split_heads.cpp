#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "split_heads";

}  // namespace

Heads split_heads(const Tensor& qkv, size_t n_head) {
  detail::require_dtype(kOp, "qkv", qkv, DType::f32);
  detail::require_rank(kOp, "qkv", qkv, 2);
  size_t t = qkv.dim(0);
  size_t cols = qkv.dim(1) / 3;
  if (qkv.dim(1) % 3 != 0 || n_head == 0 || cols % n_head != 0) {
    detail::fail(kOp, "qkv " + qkv.describe() + " does not split into 3 × " +
                          std::to_string(n_head) + " heads");
  }
  size_t head_dim = cols / n_head;
  Shape head_shape{n_head, t, head_dim};
  Heads heads{detail::new_output(qkv, head_shape), detail::new_output(qkv, head_shape),
              detail::new_output(qkv, head_shape)};
  const auto& context = qkv.context();
  if (!context) {
    auto in = qkv.floats();
    std::span<float> parts[3] = {heads.q.floats(), heads.k.floats(), heads.v.floats()};
    for (size_t token = 0; token < t; ++token) {
      for (size_t col = 0; col < 3 * cols; ++col) {
        size_t within = col % cols;
        size_t head = within / head_dim;
        parts[col / cols][(head * t + token) * head_dim + within % head_dim] =
            in[token * 3 * cols + col];
      }
    }
  } else if (qkv.numel() > 0) {
    std::array<uint32_t, 4> params = {detail::word(kOp, qkv.numel()), detail::word(kOp, t),
                                      detail::word(kOp, cols), detail::word(kOp, head_dim)};
    context->dispatch(kOp, params,
                      detail::Bindings(kOp, {qkv}, {heads.q, heads.k, heads.v}).ranges(),
                      detail::linear_grid(kOp, *context, qkv.numel()));
  }
  return heads;
}

}  // namespace wgpt::ops
