#pragma once
// The argument checks cross_entropy and its gradient share.

#include <string>
#include <string_view>

#include "ops/op_support.h"

namespace wgpt::ops::detail {

// logits f32 [rows, vocab] with vocab > 0, targets u32 [rows]; on the CPU every target is checked
// against the vocabulary (on the GPU the ids stay on the device: callers check them before upload).
inline void check_cross_entropy(std::string_view op, const Tensor& logits, const Tensor& targets) {
  require_dtype(op, "logits", logits, DType::f32);
  require_rank(op, "logits", logits, 2);
  require_dtype(op, "targets", targets, DType::u32);
  if (logits.dim(1) == 0 || targets.shape() != Shape{logits.dim(0)}) {
    fail(op, "logits " + logits.describe() + " need one target per row, got " + targets.describe());
  }
  if (targets.is_gpu()) return;
  for (uint32_t id : targets.u32s()) {
    if (id >= logits.dim(1)) {
      fail(op, "target " + std::to_string(id) + " is outside the " + std::to_string(logits.dim(1)) +
                   " classes");
    }
  }
}

}  // namespace wgpt::ops::detail
