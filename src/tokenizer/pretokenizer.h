#pragma once
// GPT-2's pre-tokenizer: the regex that cuts text into the pieces BPE merges within —
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// run by PCRE2 in UTF mode with Unicode properties (UCP), JIT-compiled where available.

#include <functional>
#include <memory>
#include <string_view>

namespace wgpt::tokenizer {

class PreTokenizer {
 public:
  PreTokenizer();
  ~PreTokenizer();
  PreTokenizer(const PreTokenizer&) = delete;
  PreTokenizer& operator=(const PreTokenizer&) = delete;

  // Calls on_piece for each piece in order; the pieces concatenate to `text`. Throws wgpt::Error
  // naming the byte offset when text is not valid UTF-8. Safe to call from several threads.
  void split(std::string_view text, const std::function<void(std::string_view)>& on_piece) const;

 private:
  struct Pattern;
  std::unique_ptr<Pattern> pattern_;
};

}  // namespace wgpt::tokenizer
