// decode_attention_rows: a batched decode step's attention, each row over its own slot's cache.
// The CPU reference is the definition (each row's softmax in double); the kernel
// (decode_attention_rows.wgsl) keeps the softmax online.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "decode_attention_rows";
constexpr size_t kMaxHeadDim = 256;  // the kernel's: 64 threads × 4 columns

void attention_cpu(const detail::PoolRows& g, std::span<const float> qkv,
                   std::span<const float> keys, std::span<const float> values,
                   std::span<const uint32_t> slots, std::span<const uint32_t> positions,
                   float scale, std::span<float> out) {
  for (size_t row = 0; row < g.rows; ++row) {
    const size_t visible = positions[row] + 1;
    std::vector<double> weights(visible);
    for (size_t head = 0; head < g.n_head; ++head) {
      const size_t cache = (slots[row] * g.n_head + head) * g.n_ctx * g.head_dim;
      const float* k = keys.data() + cache;
      const float* v = values.data() + cache;
      const float* q = qkv.data() + row * 3 * g.c + head * g.head_dim;
      double largest = -INFINITY;
      for (size_t j = 0; j < visible; ++j) {
        double score = 0;
        for (size_t e = 0; e < g.head_dim; ++e) score += double(q[e]) * k[j * g.head_dim + e];
        weights[j] = score * scale;
        largest = std::max(largest, weights[j]);
      }
      double sum = 0;
      for (size_t j = 0; j < visible; ++j) sum += weights[j] = std::exp(weights[j] - largest);
      for (size_t e = 0; e < g.head_dim; ++e) {
        double acc = 0;
        for (size_t j = 0; j < visible; ++j) acc += weights[j] * v[j * g.head_dim + e];
        out[row * g.c + head * g.head_dim + e] = static_cast<float>(acc / sum);
      }
    }
  }
}

}  // namespace

Tensor decode_attention_rows(const Tensor& qkv, const Tensor& k_pool, const Tensor& v_pool,
                             const Tensor& slots, const Tensor& positions, float scale) {
  const auto& context = detail::common_context(kOp, {&qkv, &k_pool, &v_pool, &slots, &positions});
  const detail::PoolRows g = detail::check_pool_rows(kOp, qkv, k_pool, v_pool, slots, positions);
  Tensor out = detail::new_output(qkv, {g.rows, g.c});
  if (!context) {
    attention_cpu(g, qkv.floats(), k_pool.floats(), v_pool.floats(), slots.u32s(), positions.u32s(),
                  scale, out.floats());
    return out;
  }
  if (g.head_dim > kMaxHeadDim) {
    detail::fail(kOp, "the GPU kernel takes heads of up to " + std::to_string(kMaxHeadDim) +
                          " values, got " + k_pool.describe());
  }
  std::array<uint32_t, 6> params = {
      detail::word(kOp, g.n_head), detail::word(kOp, g.head_dim),
      detail::word(kOp, g.n_ctx),  detail::word(kOp, g.slots),
      detail::float_word(scale),   detail::float_word(std::numeric_limits<float>::quiet_NaN())};
  gpu::Workgroups grid{detail::word(kOp, g.n_head), detail::word(kOp, g.rows), 1};
  context->dispatch(kOp, params,
                    detail::Bindings(kOp, {qkv, k_pool, v_pool, slots, positions}, {out}).ranges(),
                    grid);
  return out;
}

}  // namespace wgpt::ops
