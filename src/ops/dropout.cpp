#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/counter_hash.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "dropout";

}  // namespace

Tensor dropout(const Tensor& x, const DropoutOptions& options) {
  detail::require_dtype(kOp, "x", x, DType::f32);
  if (!(options.p >= 0.0f && options.p < 1.0f)) {
    detail::fail(kOp, "p " + std::to_string(options.p) + " is not in [0, 1)");
  }
  // (seed, step, site) folded into the stream's 64-bit key on the host.
  const uint64_t key = mix64(mix64(mix64(options.seed) ^ options.step) ^ options.site);
  const auto key_lo = static_cast<uint32_t>(key), key_hi = static_cast<uint32_t>(key >> 32);
  // Computed once here and passed to the kernel: both sides multiply by the same f32.
  const float scale = 1.0f / (1.0f - options.p);
  // The kernel's element index is 32 bits: the CPU hashes the same indices under the same limit.
  const uint32_t n = detail::word(kOp, x.numel());
  const auto& context = x.context();
  Tensor out = detail::new_output(x, x.shape());
  if (!context) {
    auto in = x.floats(), y = out.floats();
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t bits = counter_word(key, i);
      // The top 24 bits over 2²⁴: exact in f32, so the comparison with p is the kernel's.
      const float u = static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
      y[i] = u >= options.p ? in[i] * scale : 0.0f;
    }
  } else if (n > 0) {
    std::array<uint32_t, 5> params = {n, io::f32_bits(options.p), io::f32_bits(scale), key_lo,
                                      key_hi};
    context->dispatch(kOp, params, detail::Bindings(kOp, {x}, {out}).ranges(),
                      detail::linear_grid(kOp, *context, n));
  }
  return out;
}

}  // namespace wgpt::ops
