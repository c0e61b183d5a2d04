// The q4 group of the `.fzm` format: how a group of values becomes (scale, min) and 4-bit codes,
// and back. Shared by the fzm reader and writer and by q4 tensors on the GPU.
#include <algorithm>
#include <cmath>

#include "io/fzm_layout.h"
#include "wgpt/io.h"

namespace wgpt::io {

Q4Group quantize_q4_group(std::span<const float> values, std::span<uint8_t> codes) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const float min = *lo;
  // A flat group, or one whose spread underflows to zero (subnormal values), takes scale 1: every
  // code is then 0, and dividing by a zero scale would give NaN codes.
  const float spread = (*hi - *lo) / static_cast<float>(fzm::kMaxCode);
  const float scale = spread > 0.0f ? spread : 1.0f;
  if (!std::isfinite(scale)) throw Error("the values span too wide a range for q4");
  for (size_t j = 0; j < values.size(); ++j) {
    // std::round rounds halves away from zero, as the format's writer does.
    const float code =
        std::clamp(std::round((values[j] - min) / scale), 0.0f, static_cast<float>(fzm::kMaxCode));
    codes[j] = static_cast<uint8_t>(code);
  }
  return {scale, min};
}

float dequantize_q4(uint32_t code, const Q4Group& group) {
  // Two statements, so no compiler fuses them into an FMA: the format defines a rounded multiply
  // followed by a rounded add.
  const float scaled = static_cast<float>(code) * group.scale;
  return scaled + group.min;
}

}  // namespace wgpt::io
