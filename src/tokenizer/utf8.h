#pragma once
// Minimal UTF-8: decoding one code point at a time (strictly: no overlongs, no surrogates, nothing
// above U+10FFFF) and encoding one.

#include <optional>
#include <string>
#include <string_view>

namespace wgpt::tokenizer {

// Decodes the code point starting at text[pos] and advances pos past it; nullopt (pos unchanged)
// when the bytes there are not valid UTF-8.
std::optional<char32_t> next_code_point(std::string_view text, size_t& pos);

void append_utf8(std::string& out, char32_t code_point);

// "'é' (U+00E9)", or "U+000A" alone for control characters, for error messages.
std::string describe_code_point(char32_t code_point);

}  // namespace wgpt::tokenizer
