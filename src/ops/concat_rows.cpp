// concat_rows: several row blocks stacked into one tensor (the council's hidden states).
#include <algorithm>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "concat_rows";
constexpr size_t kElementBytes = 4;

}  // namespace

Tensor concat_rows(const std::vector<Tensor>& parts) {
  if (parts.empty()) detail::fail(kOp, "needs at least one tensor");
  std::vector<const Tensor*> all;
  size_t rows = 0;
  const size_t cols = parts.front().rank() == 2 ? parts.front().dim(1) : 0;
  for (const Tensor& part : parts) {
    detail::require_dtype(kOp, "every part", part, DType::f32);
    detail::require_rank(kOp, "every part", part, 2);
    if (part.dim(1) != cols) {
      detail::fail(
          kOp, "parts differ in width: " + parts.front().describe() + " and " + part.describe());
    }
    rows += part.dim(0);
    all.push_back(&part);
  }
  const auto& context = detail::common_context(kOp, all);
  Tensor out = detail::new_output(parts.front(), {rows, cols});
  size_t row = 0;
  for (const Tensor& part : parts) {
    if (!context) {
      auto from = part.floats();
      std::copy(from.begin(), from.end(),
                out.floats().begin() + static_cast<ptrdiff_t>(row * cols));
    } else if (part.numel() > 0) {
      const size_t bytes = part.numel() * kElementBytes;
      context->copy(
          gpu::BufferRange(part.buffer(), part.offset() * kElementBytes, bytes),
          gpu::BufferRange(out.buffer(), (out.offset() + row * cols) * kElementBytes, bytes));
    }
    row += part.dim(0);
  }
  return out;
}

}  // namespace wgpt::ops
