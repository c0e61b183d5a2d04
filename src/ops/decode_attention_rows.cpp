// decode_attention_rows: a batched decode step's attention, each row over its own slot's cache.
// The CPU reference is causal_attention's (each row's softmax in double) on the row's cache; the
// kernel (decode_attention_rows.wgsl) keeps the softmax online.
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "decode_attention_rows";
constexpr size_t kMaxHeadDim = 256;  // the kernel's: 64 threads × 4 columns

// The definition: row r is causal_attention of its one query over its own slot's cache (a view of
// the pools), at offset positions[r].
void attention_cpu(const detail::PoolRows& g, const Tensor& qkv, const Tensor& k_pool,
                   const Tensor& v_pool, std::span<const uint32_t> slots,
                   std::span<const uint32_t> positions, float scale, std::span<float> out) {
  const Shape cache_shape = {g.n_head, g.n_ctx, g.head_dim};
  const size_t per_slot = numel(cache_shape);
  for (size_t row = 0; row < g.rows; ++row) {
    const Tensor attention =
        causal_attention(qkv.rows(row, 1), k_pool.view(slots[row] * per_slot, cache_shape),
                         v_pool.view(slots[row] * per_slot, cache_shape), positions[row], scale);
    std::copy_n(attention.floats().begin(), g.c, out.begin() + row * g.c);
  }
}

}  // namespace

Tensor decode_attention_rows(const Tensor& qkv, const Tensor& k_pool, const Tensor& v_pool,
                             const Tensor& slots, const Tensor& positions, float scale) {
  const auto& context = detail::common_context(kOp, {&qkv, &k_pool, &v_pool, &slots, &positions});
  const detail::PoolRows g = detail::check_pool_rows(kOp, qkv, k_pool, v_pool, slots, positions);
  Tensor out = detail::new_output(qkv, {g.rows, g.c});
  if (!context) {
    attention_cpu(g, qkv, k_pool, v_pool, slots.u32s(), positions.u32s(), scale, out.floats());
    return out;
  }
  if (g.head_dim > kMaxHeadDim) {
    detail::fail(kOp, "the GPU kernel takes heads of up to " + std::to_string(kMaxHeadDim) +
                          " values, got " + k_pool.describe());
  }
  std::array<uint32_t, 6> params = {
      detail::word(kOp, g.n_head), detail::word(kOp, g.head_dim),
      detail::word(kOp, g.n_ctx),  detail::word(kOp, g.slots),
      io::f32_bits(scale),         io::f32_bits(std::numeric_limits<float>::quiet_NaN())};
  gpu::Workgroups grid{detail::word(kOp, g.n_head), detail::word(kOp, g.rows), 1};
  context->dispatch(kOp, params,
                    detail::Bindings(kOp, {qkv, k_pool, v_pool, slots, positions}, {out}).ranges(),
                    grid);
  return out;
}

}  // namespace wgpt::ops
