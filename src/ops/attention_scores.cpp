#include <string>

#include "ops/gemm.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "attention_scores";

}  // namespace

Tensor attention_scores(const Tensor& q, const Tensor& k_cache, size_t kv_len, float scale) {
  detail::require_rank(kOp, "q", q, 3);
  detail::require_rank(kOp, "k_cache", k_cache, 3);
  size_t n_head = q.dim(0);
  size_t t = q.dim(1);
  size_t head_dim = q.dim(2);
  size_t n_ctx = k_cache.dim(1);
  if (k_cache.dim(0) != n_head || k_cache.dim(2) != head_dim || kv_len == 0 || kv_len > n_ctx) {
    detail::fail(kOp, "q " + q.describe() + " against the first " + std::to_string(kv_len) +
                          " rows of k_cache " + k_cache.describe());
  }
  // Per head: q [t, hd] · k[:kv_len]ᵀ; the heads of the cache are n_ctx rows apart.
  detail::Gemm geometry{.batch = n_head,
                        .m = t,
                        .k = head_dim,
                        .n = kv_len,
                        .a_batch_stride = t * head_dim,
                        .b_batch_stride = n_ctx * head_dim,
                        .trans_b = true,
                        .scale = scale,
                        .out_row_stride = kv_len};
  Shape out_shape{n_head, t, kv_len};
  Tensor out = detail::new_output(q, out_shape);
  detail::gemm(kOp, geometry, q, k_cache, {}, out);
  return out;
}

}  // namespace wgpt::ops
