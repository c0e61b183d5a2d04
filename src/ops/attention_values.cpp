#include <string>

#include "ops/gemm.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "attention_values";

}  // namespace

Tensor attention_values(const Tensor& probs, const Tensor& v_cache) {
  detail::require_rank(kOp, "probs", probs, 3);
  detail::require_rank(kOp, "v_cache", v_cache, 3);
  size_t n_head = probs.dim(0);
  size_t t = probs.dim(1);
  size_t kv_len = probs.dim(2);
  size_t n_ctx = v_cache.dim(1);
  size_t head_dim = v_cache.dim(2);
  if (v_cache.dim(0) != n_head || kv_len > n_ctx) {
    detail::fail(kOp, "probs " + probs.describe() + " against v_cache " + v_cache.describe());
  }
  // Per head: probs [t, kv_len] · v[:kv_len] [kv_len, hd]; the heads of the cache are n_ctx rows
  // apart.
  detail::Gemm geometry{.batch = n_head,
                        .m = t,
                        .k = kv_len,
                        .n = head_dim,
                        .a_batch_stride = t * kv_len,
                        .b_batch_stride = n_ctx * head_dim,
                        .out_row_stride = head_dim};
  Shape out_shape{n_head, t, head_dim};
  Tensor out = detail::new_output(probs, out_shape);
  detail::gemm(kOp, geometry, probs, v_cache, {}, out);
  return out;
}

}  // namespace wgpt::ops
