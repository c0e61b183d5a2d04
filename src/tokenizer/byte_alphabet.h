#pragma once
// GPT-2's byte alphabet: each of the 256 byte values stands for one printable code point, so that
// byte-level tokens are readable strings in vocab.json and merges.txt. Printable Latin-1 bytes
// ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for themselves; the other 68 map, in byte order, to
// U+0100 onwards (so the space 0x20 becomes 'Ġ' U+0120).

#include <array>
#include <cstdint>
#include <optional>

namespace wgpt::tokenizer {

const std::array<char32_t, 256>& byte_to_code_point();
// The byte a code point of the alphabet stands for; nullopt for code points outside it.
std::optional<uint8_t> code_point_to_byte(char32_t code_point);

}  // namespace wgpt::tokenizer
