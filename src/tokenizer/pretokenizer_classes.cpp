#include "tokenizer/pretokenizer_classes.h"

#include <algorithm>

namespace wgpt::tokenizer {

CharClass char_class(char32_t code_point) {
  const auto ranges = char_class_ranges();
  auto after = std::upper_bound(
      ranges.begin(), ranges.end(), code_point,
      [](char32_t value, const CharClassRange& range) { return value < range.first; });
  if (after == ranges.begin()) return CharClass::other;
  const CharClassRange& range = *(after - 1);
  return code_point <= range.last ? range.cls : CharClass::other;
}

}  // namespace wgpt::tokenizer
