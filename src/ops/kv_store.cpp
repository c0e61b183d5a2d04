#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "kv_store";

}  // namespace

void kv_store(const Tensor& qkv, Tensor& k_cache, Tensor& v_cache, size_t position) {
  for (const auto& [role, tensor] : {std::pair<std::string_view, const Tensor*>{"qkv", &qkv},
                                     {"k_cache", &k_cache},
                                     {"v_cache", &v_cache}}) {
    detail::require_dtype(kOp, role, *tensor, DType::f32);
  }
  detail::require_rank(kOp, "qkv", qkv, 2);
  detail::require_rank(kOp, "k_cache", k_cache, 3);
  const size_t t = qkv.dim(0), n_head = k_cache.dim(0), n_ctx = k_cache.dim(1),
               head_dim = k_cache.dim(2), c = n_head * head_dim;
  if (qkv.dim(1) != 3 * c || v_cache.shape() != k_cache.shape() || position + t > n_ctx) {
    detail::fail(kOp, "qkv " + qkv.describe() + " at position " + std::to_string(position) +
                          " does not fit caches " + k_cache.describe() + ", " + v_cache.describe());
  }
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
  } else if (t > 0) {
    std::array<uint32_t, 5> params = {detail::word(kOp, t * c), detail::word(kOp, c),
                                      detail::word(kOp, head_dim), detail::word(kOp, n_ctx),
                                      detail::word(kOp, position)};
    context->dispatch(kOp, params, detail::Bindings(kOp, {qkv}, {k_cache, v_cache}).ranges(),
                      detail::linear_grid(kOp, *context, t * c));
  }
}

}  // namespace wgpt::ops
