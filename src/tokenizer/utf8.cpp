#include "tokenizer/utf8.h"

#include <cstdio>

namespace wgpt::tokenizer {

std::optional<char32_t> next_code_point(std::string_view text, size_t& pos) {
  if (pos >= text.size()) return std::nullopt;
  const auto lead = static_cast<unsigned char>(text[pos]);
  size_t length;
  char32_t code_point;
  char32_t minimum;  // smaller values would be overlong encodings
  if (lead < 0x80) {
    ++pos;
    return lead;
  } else if ((lead & 0xe0) == 0xc0) {
    length = 2, code_point = lead & 0x1f, minimum = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3, code_point = lead & 0x0f, minimum = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4, code_point = lead & 0x07, minimum = 0x10000;
  } else {
    return std::nullopt;
  }
  if (text.size() - pos < length) return std::nullopt;
  for (size_t i = 1; i < length; ++i) {
    const auto continuation = static_cast<unsigned char>(text[pos + i]);
    if ((continuation & 0xc0) != 0x80) return std::nullopt;
    code_point = (code_point << 6) | (continuation & 0x3f);
  }
  if (code_point < minimum || code_point > 0x10ffff ||
      (code_point >= 0xd800 && code_point <= 0xdfff)) {
    return std::nullopt;
  }
  pos += length;
  return code_point;
}

void append_utf8(std::string& out, char32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xc0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xe0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  }
}

std::string describe_code_point(char32_t code_point) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(code_point));
  if (code_point < 0x20 || code_point == 0x7f) return hex;
  std::string text = "'";
  append_utf8(text, code_point);
  return text + "' (" + hex + ")";
}

}  // namespace wgpt::tokenizer
