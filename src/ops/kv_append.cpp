#include <algorithm>
#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "kv_append";

}  // namespace

void kv_append(Tensor& cache, const Tensor& x, size_t position) {
  detail::require_dtype(kOp, "cache", cache, DType::f32);
  detail::require_dtype(kOp, "x", x, DType::f32);
  detail::require_rank(kOp, "cache", cache, 3);
  detail::require_rank(kOp, "x", x, 3);
  size_t n_head = x.dim(0);
  size_t t = x.dim(1);
  size_t head_dim = x.dim(2);
  size_t n_ctx = cache.dim(1);
  if (cache.dim(0) != n_head || cache.dim(2) != head_dim || position + t > n_ctx) {
    detail::fail(kOp, "x " + x.describe() + " at position " + std::to_string(position) +
                          " does not fit cache " + cache.describe());
  }
  const auto& context = detail::common_context(kOp, {&cache, &x});
  if (!context) {
    auto in = x.floats(), rows = cache.floats();
    for (size_t head = 0; head < n_head; ++head) {
      auto head_rows = in.subspan(head * t * head_dim, t * head_dim);
      std::copy(head_rows.begin(), head_rows.end(),
                rows.begin() + static_cast<ptrdiff_t>((head * n_ctx + position) * head_dim));
    }
  } else if (x.numel() > 0) {
    std::array<uint32_t, 5> params = {detail::word(kOp, x.numel()), detail::word(kOp, t),
                                      detail::word(kOp, head_dim), detail::word(kOp, n_ctx),
                                      detail::word(kOp, position)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x}, {cache}).ranges(),
                      detail::linear_grid(kOp, *context, x.numel()));
  }
}

}  // namespace wgpt::ops
