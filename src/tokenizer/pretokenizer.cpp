#include "tokenizer/pretokenizer.h"

#include <string>
#include <vector>

#include "tokenizer/pretokenizer_classes.h"
#include "tokenizer/utf8.h"
#include "wgpt/error.h"

namespace wgpt::tokenizer {
namespace {

struct Symbol {
  size_t offset;  // of its first byte in the text
  char32_t code_point;
  CharClass cls;
};

// The whole text decoded up front: invalid UTF-8 is reported before any piece (as PCRE2's check
// of the whole subject did), and the matcher gets its look-ahead by index.
std::vector<Symbol> decode(std::string_view text) {
  std::vector<Symbol> symbols;
  symbols.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const auto code_point = next_code_point(text, pos);
    if (!code_point) throw Error("text is not valid UTF-8 at byte " + std::to_string(start));
    symbols.push_back({start, *code_point, char_class(*code_point)});
  }
  return symbols;
}

// 's|'t|'re|'ve|'m|'ll|'d at symbols[i] (an apostrophe): the length matched, or 0.
size_t contraction_length(const std::vector<Symbol>& symbols, size_t i) {
  auto at = [&](size_t k) { return k < symbols.size() ? symbols[k].code_point : U'\0'; };
  switch (at(i + 1)) {
    case U's':
    case U't':
    case U'm':
    case U'd':
      return 2;
    case U'r':
      return at(i + 2) == U'e' ? 3 : 0;
    case U'v':
      return at(i + 2) == U'e' ? 3 : 0;
    case U'l':
      return at(i + 2) == U'l' ? 3 : 0;
    default:
      return 0;
  }
}

// The end (exclusive) of the piece the pattern matches at symbols[i]: the alternatives in order,
// each greedy, as a backtracking engine would settle them.
size_t piece_end(const std::vector<Symbol>& symbols, size_t i) {
  const size_t n = symbols.size();
  if (symbols[i].code_point == U'\'') {
    if (const size_t length = contraction_length(symbols, i)) return i + length;
  }
  // ` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+`: an optional space, then a run of one class.
  size_t start = i;
  if (symbols[i].code_point == U' ' && i + 1 < n && symbols[i + 1].cls != CharClass::space) {
    start = i + 1;
  }
  const CharClass run = symbols[start].cls;
  size_t end = start;
  while (end < n && symbols[end].cls == run) ++end;
  if (run != CharClass::space) return end;
  // `\s+(?!\S)`: a whitespace run, less its last character when a non-space follows (that
  // character then starts the next piece, e.g. as the space of " word"); a single whitespace
  // character before a non-space falls through to `\s+`.
  if (end == n || end - i == 1) return end;
  return end - 1;
}

}  // namespace

void PreTokenizer::split(std::string_view text,
                         const std::function<void(std::string_view)>& on_piece) const {
  const std::vector<Symbol> symbols = decode(text);
  for (size_t i = 0; i < symbols.size();) {
    const size_t end = piece_end(symbols, i);
    const size_t end_byte = end < symbols.size() ? symbols[end].offset : text.size();
    on_piece(text.substr(symbols[i].offset, end_byte - symbols[i].offset));
    i = end;
  }
}

}  // namespace wgpt::tokenizer
