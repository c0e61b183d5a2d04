#include <array>
#include <cmath>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "layernorm_backward";

// dx and dy · x̂ per row, statistics in double as the forward's reference computes them.
void layernorm_backward_cpu(std::span<const float> x, std::span<const float> gamma,
                            std::span<const float> dy, float eps, std::span<float> dx,
                            std::span<float> dy_xhat) {
  const size_t cols = gamma.size();
  const double n = static_cast<double>(cols);
  for (size_t base = 0; base < x.size(); base += cols) {
    double sum = 0.0;
    for (size_t c = 0; c < cols; ++c) sum += x[base + c];
    const double mean = sum / n;
    double squares = 0.0;
    for (size_t c = 0; c < cols; ++c) squares += (x[base + c] - mean) * (x[base + c] - mean);
    const double inv_std = 1.0 / std::sqrt(squares / n + eps);
    double g_sum = 0.0, g_xhat_sum = 0.0;
    for (size_t c = 0; c < cols; ++c) {
      const double g = static_cast<double>(dy[base + c]) * gamma[c];
      g_sum += g;
      g_xhat_sum += g * (x[base + c] - mean) * inv_std;
    }
    for (size_t c = 0; c < cols; ++c) {
      const double xhat = (x[base + c] - mean) * inv_std;
      const double g = static_cast<double>(dy[base + c]) * gamma[c];
      dx[base + c] = static_cast<float>(inv_std * (g - g_sum / n - xhat * g_xhat_sum / n));
      dy_xhat[base + c] = static_cast<float>(dy[base + c] * xhat);
    }
  }
}

}  // namespace

LayerNormGrads layernorm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy,
                                  float eps) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_dtype(kOp, "gamma", gamma, DType::f32);
  detail::require_dtype(kOp, "dy", dy, DType::f32);
  if (x.rank() == 0 || x.dim(-1) == 0 || gamma.shape() != Shape{x.dim(-1)} ||
      dy.shape() != x.shape()) {
    detail::fail(kOp, "x " + x.describe() +
                          " needs gamma of its last dimension and dy of its "
                          "shape, got " +
                          gamma.describe() + " and " + dy.describe());
  }
  const auto& context = detail::common_context(kOp, {&x, &gamma, &dy});
  const size_t cols = x.dim(-1);
  const size_t rows = x.numel() / cols;
  Tensor dx = detail::new_output(x, x.shape());
  Tensor dy_xhat = detail::new_output(x, {rows, cols});
  if (!context) {
    layernorm_backward_cpu(x.floats(), gamma.floats(), dy.floats(), eps, dx.floats(),
                           dy_xhat.floats());
  } else if (rows > 0) {
    std::array<uint32_t, 3> params = {detail::word(kOp, rows), detail::word(kOp, cols),
                                      io::f32_bits(eps)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x, gamma, dy}, {dx, dy_xhat}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  return {dx, sum_rows(dy_xhat), sum_rows(dy.reshape({rows, cols}))};
}

}  // namespace wgpt::ops
