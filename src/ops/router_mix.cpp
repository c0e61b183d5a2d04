// router_mix: the council's router — weights from scores, and the weighted mixture of the rows.
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "router_mix";

}  // namespace

Mixture router_mix(const Tensor& x, const Tensor& scores, float beta) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_dtype(kOp, "scores", scores, DType::f32);
  detail::require_rank(kOp, "x", x, 2);
  detail::require_rank(kOp, "scores", scores, 1);
  const size_t n = x.dim(0), cols = x.dim(1);
  if (n == 0 || scores.dim(0) != n) {
    detail::fail(kOp, "needs one score per row of at least one: x " + x.describe() + ", scores " +
                          scores.describe());
  }
  if (!(beta >= 0.0f && std::isfinite(beta))) {
    detail::fail(kOp, "beta must be finite and ≥ 0, got " + std::to_string(beta));
  }
  const auto& context = detail::common_context(kOp, {&x, &scores});
  Mixture out{detail::new_output(x, {n}), detail::new_output(x, {1, cols})};
  if (!context) {
    auto s = scores.floats();
    auto w = out.weights.floats();
    const double lowest = *std::min_element(s.begin(), s.end());
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) total += std::exp(-static_cast<double>(beta) * (s[i] - lowest));
    for (size_t i = 0; i < n; ++i) {
      w[i] = static_cast<float>(std::exp(-static_cast<double>(beta) * (s[i] - lowest)) / total);
    }
    auto rows = x.floats();
    auto mixed = out.mixed.floats();
    for (size_t c = 0; c < cols; ++c) {
      double sum = 0.0;
      for (size_t i = 0; i < n; ++i) sum += static_cast<double>(w[i]) * rows[i * cols + c];
      mixed[c] = static_cast<float>(sum);
    }
  } else {
    std::array<uint32_t, 3> params = {detail::word(kOp, n), detail::word(kOp, cols),
                                      io::f32_bits(beta)};
    context->dispatch(kOp, params,
                      detail::Bindings(kOp, {x, scores}, {out.weights, out.mixed}).ranges(),
                      detail::linear_grid(kOp, *context, std::max(n, cols)));
  }
  return out;
}

}  // namespace wgpt::ops
