#include <array>
#include <cmath>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "layernorm";

void layernorm_cpu(std::span<const float> x, std::span<const float> gamma,
                   std::span<const float> beta, float eps, std::span<float> y) {
  size_t cols = gamma.size();
  for (size_t base = 0; base < x.size(); base += cols) {
    double sum = 0.0;
    for (size_t c = 0; c < cols; ++c) sum += x[base + c];
    double mean = sum / static_cast<double>(cols);
    double squares = 0.0;
    for (size_t c = 0; c < cols; ++c) squares += (x[base + c] - mean) * (x[base + c] - mean);
    double inv_std = 1.0 / std::sqrt(squares / static_cast<double>(cols) + eps);
    for (size_t c = 0; c < cols; ++c) {
      y[base + c] = static_cast<float>((x[base + c] - mean) * inv_std * gamma[c] + beta[c]);
    }
  }
}

}  // namespace

Tensor layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_dtype(kOp, "gamma", gamma, DType::f32);
  detail::require_dtype(kOp, "beta", beta, DType::f32);
  if (x.rank() == 0 || x.dim(-1) == 0 || gamma.shape() != Shape{x.dim(-1)} ||
      beta.shape() != gamma.shape()) {
    detail::fail(kOp, "x " + x.describe() + " needs gamma and beta of its last dimension, got " +
                          gamma.describe() + " and " + beta.describe());
  }
  const auto& context = detail::common_context(kOp, {&x, &gamma, &beta});
  Tensor out = detail::new_output(x, x.shape());
  size_t cols = x.dim(-1);
  size_t rows = x.numel() / cols;
  if (!context) {
    layernorm_cpu(x.floats(), gamma.floats(), beta.floats(), eps, out.floats());
  } else if (rows > 0) {
    std::array<uint32_t, 3> params = {detail::word(kOp, rows), detail::word(kOp, cols),
                                      io::f32_bits(eps)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x, gamma, beta}, {out}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  return out;
}

}  // namespace wgpt::ops
