#pragma once
// GPT-2's pre-tokenizer: the regex that cuts text into the pieces BPE merges within —
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// matched by hand (no regex engine: the browser build has none) with the character classes PCRE2
// gives it in UTF + UCP mode, so the pieces are exactly those PCRE2 finds.

#include <functional>
#include <string_view>

namespace wgpt::tokenizer {

class PreTokenizer {
 public:
  // Calls on_piece for each piece in order; the pieces concatenate to `text`. Throws wgpt::Error
  // naming the byte offset when text is not valid UTF-8 (before any piece). Safe to call from
  // several threads.
  void split(std::string_view text, const std::function<void(std::string_view)>& on_piece) const;
};

}  // namespace wgpt::tokenizer
