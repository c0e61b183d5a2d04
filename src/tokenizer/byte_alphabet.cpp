#include "tokenizer/byte_alphabet.h"

namespace wgpt::tokenizer {
namespace {

bool stands_for_itself(unsigned byte) {
  return (byte >= '!' && byte <= '~') || (byte >= 0xa1 && byte <= 0xac) || byte >= 0xae;
}

std::array<char32_t, 256> build_alphabet() {
  std::array<char32_t, 256> alphabet{};
  char32_t next_substitute = 0x100;
  for (unsigned byte = 0; byte < 256; ++byte) {
    alphabet[byte] = stands_for_itself(byte) ? byte : next_substitute++;
  }
  return alphabet;
}

}  // namespace

const std::array<char32_t, 256>& byte_to_code_point() {
  static const std::array<char32_t, 256> alphabet = build_alphabet();
  return alphabet;
}

std::optional<uint8_t> code_point_to_byte(char32_t code_point) {
  // Every code point of the alphabet is below U+0100 plus the 68 substitutes.
  static const auto inverse = [] {
    std::array<int16_t, 0x100 + 68> table;
    table.fill(-1);
    for (unsigned byte = 0; byte < 256; ++byte) {
      table[byte_to_code_point()[byte]] = static_cast<int16_t>(byte);
    }
    return table;
  }();
  if (code_point >= inverse.size() || inverse[code_point] < 0) return std::nullopt;
  return static_cast<uint8_t>(inverse[code_point]);
}

}  // namespace wgpt::tokenizer
