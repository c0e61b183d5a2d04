#pragma once
// The pieces of the sampling definition (include/wgpt/sampling.h) that the CPU reference and the
// GPU sampler's host side share, so both start from the same words: the f32 reciprocals the
// logits are multiplied by, the random stream's key, a logit's rank key and its fixed-point weight.
// The kernels repeat them in src/kernels/lib/sample_common.wgsl.

#include <cmath>
#include <cstdint>

#include "wgpt/ops.h"
#include "wgpt/sampling.h"

namespace wgpt::model::sampling {

struct Terms {
  float inv_temperature = 1.0f;  // z = a · inv_temperature (1 for greedy decoding)
  float inv_repeat = 1.0f;       // a positive logit in the window is multiplied by it
  uint64_t key = 0;              // the random stream's key
};

Terms terms_of(const SamplingOptions& options);

using ops::rank_key;

// ⌊exp(z − largest) · 2³¹⌋: a weight in [0, 1] as an exact integer.
inline uint32_t fixed_weight(float z, float largest) {
  return static_cast<uint32_t>(std::exp(z - largest) * 2147483648.0f);
}

// f32(x) for a sum of fixed-point weights: f32(x_hi) · 2³² ⊕ f32(x_lo), as the kernels round it.
inline float sum_as_float(uint64_t x) {
  return static_cast<float>(static_cast<uint32_t>(x >> 32)) * 4294967296.0f +
         static_cast<float>(static_cast<uint32_t>(x));
}

// ⌈p ⊗ f32(total)⌉: the mass a top-p prefix must reach.
uint64_t nucleus_target(float p, uint64_t total);

// ⌊r · total / 2³²⌋: where the draw r lands in a total of fixed-point weights.
inline uint64_t draw_target(uint32_t r, uint64_t total) {
  const uint64_t hi = total >> 32, lo = total & 0xffffffffu;
  return r * hi + ((r * lo) >> 32);
}

}  // namespace wgpt::model::sampling
