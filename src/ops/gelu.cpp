#include <array>
#include <cmath>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "gelu";
constexpr float kSqrt2OverPi = 0.7978845608028654f;

}  // namespace

Tensor gelu(const Tensor& x) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  const auto& context = x.context();
  Tensor out = detail::new_output(x, x.shape());
  if (!context) {
    auto in = x.floats(), y = out.floats();
    for (size_t i = 0; i < y.size(); ++i) {
      float v = in[i];
      y[i] = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
    }
  } else if (out.numel() > 0) {
    std::array<uint32_t, 1> params = {detail::word(kOp, out.numel())};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x}, {out}).ranges(),
                      detail::linear_grid(kOp, *context, out.numel()));
  }
  return out;
}

}  // namespace wgpt::ops
