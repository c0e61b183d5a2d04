#include <algorithm>
#include <cmath>
#include <numbers>

#include "wgpt/train.h"

namespace wgpt::train {

float Schedule::at(size_t step) const {
  if (step < warmup) return lr * static_cast<float>(step + 1) / static_cast<float>(warmup);
  if (!cosine || total_steps <= warmup) return lr;
  const double progress =
      std::min(1.0, static_cast<double>(step - warmup) / static_cast<double>(total_steps - warmup));
  const double decay = 0.5 * (1.0 + std::cos(std::numbers::pi * progress));  // 1 → 0
  return static_cast<float>(lr * (min_ratio + (1.0 - min_ratio) * decay));
}

}  // namespace wgpt::train
