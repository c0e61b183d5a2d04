#include <array>
#include <cmath>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "gelu_backward";
constexpr double kSqrt2OverPi = 0.7978845608028654;

}  // namespace

Tensor gelu_backward(const Tensor& x, const Tensor& dy) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_dtype(kOp, "dy", dy, DType::f32);
  if (x.shape() != dy.shape()) {
    detail::fail(kOp, "x " + x.describe() + " and dy " + dy.describe() + " differ in shape");
  }
  const auto& context = detail::common_context(kOp, {&x, &dy});
  Tensor dx = detail::new_output(x, x.shape());
  if (!context) {
    auto in = x.floats(), grad = dy.floats(), out = dx.floats();
    for (size_t i = 0; i < out.size(); ++i) {
      const double v = in[i];
      const double th = std::tanh(kSqrt2OverPi * (v + 0.044715 * v * v * v));
      const double slope = 0.5 * (1.0 + th) + 0.5 * v * (1.0 - th * th) * kSqrt2OverPi *
                                                  (1.0 + 3.0 * 0.044715 * v * v);
      out[i] = static_cast<float>(slope * grad[i]);
    }
  } else if (dx.numel() > 0) {
    std::array<uint32_t, 1> params = {detail::word(kOp, dx.numel())};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x, dy}, {dx}).ranges(),
                      detail::linear_grid(kOp, *context, dx.numel()));
  }
  return dx;
}

}  // namespace wgpt::ops
