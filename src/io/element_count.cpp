#include "io/element_count.h"

#include <algorithm>
#include <limits>

namespace wgpt::io {

std::optional<uint64_t> element_count(const Shape& shape) {
  if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) return std::nullopt;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  constexpr auto kLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t count = 1;
  for (const int64_t dim : shape) {
    const auto d = static_cast<uint64_t>(dim);
    if (count > kLimit / d) return std::nullopt;
    count *= d;
  }
  return count;
}

std::string shape_string(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace wgpt::io
