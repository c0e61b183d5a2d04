#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "kv_store";

}  // namespace

void kv_store(const Tensor& qkv, Tensor& k_cache, Tensor& v_cache, size_t position) {
  const detail::QkvCaches g = detail::check_qkv_caches(kOp, qkv, k_cache, v_cache, position);
  const size_t t = g.t, n_ctx = g.n_ctx, head_dim = g.head_dim, c = g.c;
  const auto& context = detail::common_context(kOp, {&qkv, &k_cache, &v_cache});
  if (!context) {
    auto in = qkv.floats(), keys = k_cache.floats(), values = v_cache.floats();
    for (size_t row = 0; row < t; ++row) {
      for (size_t col = 0; col < c; ++col) {
        const size_t at = ((col / head_dim) * n_ctx + position + row) * head_dim + col % head_dim;
        keys[at] = in[row * 3 * c + c + col];
        values[at] = in[row * 3 * c + 2 * c + col];
      }
    }
  } else {
    std::array<uint32_t, 5> params = {detail::word(kOp, t * c), detail::word(kOp, c),
                                      detail::word(kOp, head_dim), detail::word(kOp, n_ctx),
                                      detail::word(kOp, position)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {qkv}, {k_cache, v_cache}).ranges(),
                      detail::linear_grid(kOp, *context, t * c));
  }
}

}  // namespace wgpt::ops
