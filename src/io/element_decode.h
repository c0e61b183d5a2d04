#pragma once
// Tensors stored as plain little-endian elements (f32, f16, bf16, i64, i32, u32), as safetensors
// and GGUF both store them: one decoder for the two readers.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "wgpt/io.h"

namespace wgpt::io {

// The tensor whose `numel` elements of `dtype` are `bytes` (already bounds-checked by the reader):
// an aligned f32 region is viewed in place, kept alive by `owner` (copied where `owner` is null);
// every other dtype is decoded into a copy. nullopt for a dtype that is not plain elements (the
// block-quantised ones), which the caller decodes or refuses itself.
std::optional<TensorData> decode_elements(const std::string& name, const Shape& shape, DType dtype,
                                          std::span<const uint8_t> bytes, uint64_t numel,
                                          const std::shared_ptr<const void>& owner);

}  // namespace wgpt::io
