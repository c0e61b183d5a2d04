// cross_entropy: the training loss per row.
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/cross_entropy_checks.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "cross_entropy";

}  // namespace

Tensor cross_entropy(const Tensor& logits, const Tensor& targets) {
  detail::check_cross_entropy(kOp, logits, targets);
  const auto& context = detail::common_context(kOp, {&logits, &targets});
  const size_t rows = logits.dim(0), cols = logits.dim(1);
  Tensor loss = detail::new_output(logits, {rows});
  if (!context) {
    auto x = logits.floats();
    auto ids = targets.u32s();
    auto out = loss.floats();
    for (size_t row = 0; row < rows; ++row) {
      const float* in = x.data() + row * cols;
      const double largest = *std::max_element(in, in + cols);
      double sum = 0.0;
      for (size_t c = 0; c < cols; ++c) sum += std::exp(in[c] - largest);
      out[row] = static_cast<float>(std::log(sum) + largest - in[ids[row]]);
    }
  } else if (rows > 0) {
    std::array<uint32_t, 2> params = {detail::word(kOp, rows), detail::word(kOp, cols)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {logits, targets}, {loss}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  return loss;
}

}  // namespace wgpt::ops
