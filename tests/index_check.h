#pragma once
// Shared by the format fuzzers and the corruption tests: whether the header-only index of some
// bytes lists exactly what the full loader loads (names, dtypes, shapes, metadata) and refuses
// exactly what it refuses.

#include <cstdint>
#include <optional>
#include <span>

#include "wgpt/io.h"

inline bool index_agrees(std::span<const uint8_t> bytes) {
  using namespace wgpt::io;
  std::optional<TensorIndex> loaded, index;
  try {
    loaded = load_tensors(bytes).index();
  } catch (const wgpt::Error&) {
  }
  try {
    index = read_index(bytes);
  } catch (const wgpt::Error&) {
  }
  if (loaded.has_value() != index.has_value()) return false;
  if (!loaded) return true;
  if (index->tensors.size() != loaded->tensors.size() || index->metadata != loaded->metadata) {
    return false;
  }
  for (size_t i = 0; i < loaded->tensors.size(); ++i) {
    const TensorInfo &a = index->tensors[i], &b = loaded->tensors[i];
    if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape) return false;
  }
  return true;
}
