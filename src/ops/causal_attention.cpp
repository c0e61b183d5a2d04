// causal_attention: a prompt's attention in one pass. The CPU reference is the definition (the
// softmax of each row in double); the kernel (flash_attention.wgsl) keeps it online.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "causal_attention";
constexpr size_t kKernelHeadDim = 64;  // flash_attention.wgsl's
constexpr size_t kKernelRows = 64;     // query rows per workgroup

void attention_cpu(const detail::QkvCaches& d, std::span<const float> qkv,
                   std::span<const float> keys, std::span<const float> values, size_t offset,
                   float scale, std::span<float> out) {
  std::vector<double> weights(offset + d.t);
  for (size_t head = 0; head < d.n_head; ++head) {
    const float* k = keys.data() + head * d.n_ctx * d.head_dim;
    const float* v = values.data() + head * d.n_ctx * d.head_dim;
    for (size_t i = 0; i < d.t; ++i) {
      const float* q = qkv.data() + i * 3 * d.c + head * d.head_dim;
      const size_t visible = offset + i + 1;
      double largest = -INFINITY;
      for (size_t j = 0; j < visible; ++j) {
        double score = 0;
        for (size_t e = 0; e < d.head_dim; ++e) score += double(q[e]) * k[j * d.head_dim + e];
        weights[j] = score * scale;
        largest = std::max(largest, weights[j]);
      }
      double sum = 0;
      for (size_t j = 0; j < visible; ++j) sum += weights[j] = std::exp(weights[j] - largest);
      for (size_t e = 0; e < d.head_dim; ++e) {
        double acc = 0;
        for (size_t j = 0; j < visible; ++j) acc += weights[j] * v[j * d.head_dim + e];
        out[i * d.c + head * d.head_dim + e] = static_cast<float>(acc / sum);
      }
    }
  }
}

}  // namespace

bool causal_attention_supported(const Tensor& k_cache) {
  return !k_cache.context() || (k_cache.rank() == 3 && k_cache.dim(2) == kKernelHeadDim);
}

Tensor causal_attention(const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                        size_t offset, float scale) {
  const detail::QkvCaches d = detail::check_qkv_caches(kOp, qkv, k_cache, v_cache, offset);
  const auto& context = detail::common_context(kOp, {&qkv, &k_cache, &v_cache});
  Tensor out = detail::new_output(qkv, {d.t, d.c});
  if (!context) {
    attention_cpu(d, qkv.floats(), k_cache.floats(), v_cache.floats(), offset, scale, out.floats());
    return out;
  }
  if (!causal_attention_supported(k_cache)) {
    detail::fail(kOp, "the GPU kernel takes heads of " + std::to_string(kKernelHeadDim) +
                          " values, got " + k_cache.describe());
  }
  std::array<uint32_t, 5> params = {detail::word(kOp, d.t), detail::word(kOp, d.n_head),
                                    detail::word(kOp, d.n_ctx), detail::word(kOp, offset),
                                    io::f32_bits(scale)};
  gpu::Workgroups grid{detail::word(kOp, (d.t + kKernelRows - 1) / kKernelRows),
                       detail::word(kOp, d.n_head), 1};
  context->dispatch("flash_attention", params,
                    detail::Bindings(kOp, {qkv, k_cache, v_cache}, {out}).ranges(), grid);
  return out;
}

}  // namespace wgpt::ops
