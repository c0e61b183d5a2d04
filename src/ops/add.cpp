#include <array>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "add";

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  detail::require_dtype(kOp, "a", a, DType::f32);
  detail::require_dtype(kOp, "b", b, DType::f32);
  if (a.shape() != b.shape()) {
    detail::fail(kOp, "shapes differ: " + a.describe() + " + " + b.describe());
  }
  const auto& context = detail::common_context(kOp, {&a, &b});
  Tensor out = detail::new_output(a, a.shape());
  if (!context) {
    auto x = a.floats(), y = b.floats(), sum = out.floats();
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = x[i] + y[i];
  } else if (out.numel() > 0) {
    std::array<uint32_t, 1> params = {detail::word(kOp, out.numel())};
    context->dispatch(kOp, params, detail::Bindings(kOp, {a, b}, {out}).ranges(),
                      detail::linear_grid(kOp, *context, out.numel()));
  }
  return out;
}

}  // namespace wgpt::ops
