#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "softmax";

// Row r of [rows, cols] is query r % q_len; with a causal offset it sees keys j ≤ offset + query.
void softmax_cpu(std::span<const float> x, size_t cols, size_t q_len,
                 std::optional<size_t> causal_offset, std::span<float> y) {
  for (size_t row = 0; row * cols < x.size(); ++row) {
    const float* in = x.data() + row * cols;
    float* out = y.data() + row * cols;
    size_t visible = causal_offset ? std::min(cols, *causal_offset + row % q_len + 1) : cols;
    float largest = *std::max_element(in, in + visible);
    double sum = 0.0;
    for (size_t j = 0; j < visible; ++j) sum += std::exp(static_cast<double>(in[j]) - largest);
    for (size_t j = 0; j < cols; ++j) {
      out[j] = j < visible
                   ? static_cast<float>(std::exp(static_cast<double>(in[j]) - largest) / sum)
                   : 0.0f;
    }
  }
}

Tensor run_softmax(const Tensor& x, std::optional<size_t> causal_offset) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  if (x.rank() < (causal_offset ? 2u : 1u) || x.dim(-1) == 0) {
    detail::fail(kOp, causal_offset ? "scores must be [..., q_len, kv_len], got " + x.describe()
                                    : "cannot take a softmax over " + x.describe());
  }
  size_t cols = x.dim(-1);
  size_t rows = x.numel() / cols;
  size_t q_len = causal_offset ? x.dim(-2) : 1;
  const auto& context = x.context();
  Tensor out = detail::new_output(x, x.shape());
  if (!context) {
    softmax_cpu(x.floats(), cols, q_len, causal_offset, out.floats());
  } else if (rows > 0) {
    std::array<uint32_t, 5> params = {
        detail::word(kOp, rows), detail::word(kOp, cols), detail::word(kOp, q_len),
        // Clamped so offset + query + 1 cannot overflow in the kernel; any offset ≥ cols means the
        // same (every key visible).
        detail::word(kOp, std::min(causal_offset.value_or(0), cols)), causal_offset ? 1u : 0u};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x}, {out}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  return out;
}

}  // namespace

Tensor softmax(const Tensor& x) { return run_softmax(x, std::nullopt); }

Tensor causal_softmax(const Tensor& scores, size_t offset) { return run_softmax(scores, offset); }

}  // namespace wgpt::ops
