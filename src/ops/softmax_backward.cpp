#include <array>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "softmax_backward";

}  // namespace

Tensor softmax_backward(const Tensor& y, const Tensor& dy) {
  detail::require_dtype(kOp, "y", y, DType::f32);
  detail::require_dtype(kOp, "dy", dy, DType::f32);
  if (y.rank() == 0 || y.dim(-1) == 0 || y.shape() != dy.shape()) {
    detail::fail(kOp, "y " + y.describe() + " and dy " + dy.describe() +
                          " must share a shape with a last dimension");
  }
  const auto& context = detail::common_context(kOp, {&y, &dy});
  const size_t cols = y.dim(-1);
  const size_t rows = y.numel() / cols;
  Tensor dx = detail::new_output(y, y.shape());
  if (!context) {
    auto probs = y.floats(), grad = dy.floats(), out = dx.floats();
    for (size_t base = 0; base < probs.size(); base += cols) {
      double dot = 0.0;
      for (size_t c = 0; c < cols; ++c)
        dot += static_cast<double>(probs[base + c]) * grad[base + c];
      for (size_t c = 0; c < cols; ++c) {
        out[base + c] = static_cast<float>(probs[base + c] * (grad[base + c] - dot));
      }
    }
  } else if (rows > 0) {
    std::array<uint32_t, 2> params = {detail::word(kOp, rows), detail::word(kOp, cols)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {y, dy}, {dx}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  return dx;
}

}  // namespace wgpt::ops
