// softmax_entropy: how spread out each row's distribution is (the council router's input).
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "softmax_entropy";

// H = log S − Σ_j e_j · (x_j − max) / S with e_j = exp(x_j − max), S = Σ_j e_j: the same as
// −Σ p log p, without a logarithm per element. A logit of −∞ has e_j = 0 and adds nothing.
float entropy_of(const float* x, size_t n) {
  const double largest = *std::max_element(x, x + n);
  double sum = 0.0, weighted = 0.0;
  for (size_t j = 0; j < n; ++j) {
    const double e = std::exp(x[j] - largest);
    sum += e;
    if (e > 0.0) weighted += e * (x[j] - largest);
  }
  return static_cast<float>(std::log(sum) - weighted / sum);
}

}  // namespace

Tensor softmax_entropy(const Tensor& x) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_rank(kOp, "x", x, 2);
  const size_t rows = x.dim(0), cols = x.dim(1);
  if (cols == 0) detail::fail(kOp, "cannot take the entropy of empty rows: " + x.describe());
  Tensor out = detail::new_output(x, {rows});
  const auto& context = x.context();
  if (!context) {
    auto in = x.floats();
    auto h = out.floats();
    for (size_t row = 0; row < rows; ++row) h[row] = entropy_of(in.data() + row * cols, cols);
  } else if (rows > 0) {
    std::array<uint32_t, 2> params = {detail::word(kOp, rows), detail::word(kOp, cols)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x}, {out}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  return out;
}

}  // namespace wgpt::ops
