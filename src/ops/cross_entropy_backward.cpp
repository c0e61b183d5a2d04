#include <algorithm>
#include <array>
#include <cmath>

#include "ops/cross_entropy_checks.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "cross_entropy_backward";

}  // namespace

Tensor cross_entropy_backward(const Tensor& logits, const Tensor& targets, const Tensor& dloss) {
  detail::check_cross_entropy(kOp, logits, targets);
  detail::require_dtype(kOp, "dloss", dloss, DType::f32);
  if (dloss.shape() != Shape{logits.dim(0)}) {
    detail::fail(kOp,
                 "dloss must be [" + std::to_string(logits.dim(0)) + "], got " + dloss.describe());
  }
  const auto& context = detail::common_context(kOp, {&logits, &targets, &dloss});
  const size_t rows = logits.dim(0), cols = logits.dim(1);
  Tensor dlogits = detail::new_output(logits, logits.shape());
  if (!context) {
    auto x = logits.floats(), grad = dloss.floats(), out = dlogits.floats();
    auto ids = targets.u32s();
    for (size_t row = 0; row < rows; ++row) {
      const float* in = x.data() + row * cols;
      const double largest = *std::max_element(in, in + cols);
      double sum = 0.0;
      for (size_t c = 0; c < cols; ++c) sum += std::exp(in[c] - largest);
      for (size_t c = 0; c < cols; ++c) {
        const double p = std::exp(in[c] - largest) / sum;
        out[row * cols + c] = static_cast<float>((p - (c == ids[row] ? 1.0 : 0.0)) * grad[row]);
      }
    }
  } else if (rows > 0) {
    std::array<uint32_t, 2> params = {detail::word(kOp, rows), detail::word(kOp, cols)};
    context->dispatch(kOp, params,
                      detail::Bindings(kOp, {logits, targets, dloss}, {dlogits}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  return dlogits;
}

}  // namespace wgpt::ops
