#include <nlohmann/json.hpp>
#include <set>

#include "tokenizer/utf8.h"
#include "wgpt/tokenizer.h"

namespace wgpt::tokenizer {

std::string char_vocabulary_json(std::string_view text) {
  std::set<char32_t> characters;
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    const auto code_point = next_code_point(text, pos);
    if (!code_point) throw Error("the text is not valid UTF-8 at byte " + std::to_string(start));
    characters.insert(*code_point);
  }
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (char32_t c : characters) {
    std::string key;
    append_utf8(key, c);
    vocab[key] = vocab.size();
  }
  return vocab.dump() + "\n";
}

}  // namespace wgpt::tokenizer
