#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "kv_store_rows";

}  // namespace

void kv_store_rows(const Tensor& qkv, Tensor& k_pool, Tensor& v_pool, const Tensor& slots,
                   const Tensor& positions) {
  const auto& context = detail::common_context(kOp, {&qkv, &k_pool, &v_pool, &slots, &positions});
  const detail::PoolRows g = detail::check_pool_rows(kOp, qkv, k_pool, v_pool, slots, positions);
  if (!context) {
    auto in = qkv.floats(), keys = k_pool.floats(), values = v_pool.floats();
    for (size_t row = 0; row < g.rows; ++row) {
      const size_t slot = slots.u32s()[row], position = positions.u32s()[row];
      for (size_t col = 0; col < g.c; ++col) {
        const size_t head = col / g.head_dim;
        const size_t at =
            ((slot * g.n_head + head) * g.n_ctx + position) * g.head_dim + col % g.head_dim;
        keys[at] = in[row * 3 * g.c + g.c + col];
        values[at] = in[row * 3 * g.c + 2 * g.c + col];
      }
    }
    return;
  }
  std::array<uint32_t, 5> params = {detail::word(kOp, g.rows * g.c), detail::word(kOp, g.c),
                                    detail::word(kOp, g.head_dim), detail::word(kOp, g.n_ctx),
                                    detail::word(kOp, g.slots)};
  context->dispatch(kOp, params,
                    detail::Bindings(kOp, {qkv, slots, positions}, {k_pool, v_pool}).ranges(),
                    detail::linear_grid(kOp, *context, g.rows * g.c));
}

}  // namespace wgpt::ops
