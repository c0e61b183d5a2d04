// Character vocabularies: one token per Unicode code point.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "tokenizer/text_file.h"
#include "tokenizer/utf8.h"
#include "wgpt/tokenizer.h"

namespace wgpt::tokenizer {

std::unique_ptr<CharTokenizer> CharTokenizer::from_json(std::string_view vocab_json,
                                                        TokenizerOptions options) {
  nlohmann::json vocab;
  try {
    vocab = nlohmann::json::parse(vocab_json.begin(), vocab_json.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("character vocab.json is not valid JSON: ") + e.what());
  }
  if (!vocab.is_object() || vocab.empty()) {
    throw Error("character vocab.json must be a non-empty object mapping characters to ids");
  }
  std::unique_ptr<CharTokenizer> tokenizer(new CharTokenizer());
  tokenizer->characters_.resize(vocab.size());
  for (const auto& [key, id] : vocab.items()) {
    size_t pos = 0;
    const auto code_point = next_code_point(key, pos);
    if (!code_point || pos != key.size()) {
      throw Error("character vocab.json key \"" + key + "\" is not exactly one character");
    }
    if (!id.is_number_unsigned() || id.get<uint64_t>() >= vocab.size() ||
        !tokenizer->characters_[id.get<uint64_t>()].empty()) {
      throw Error("character vocab.json gives " + describe_code_point(*code_point) + " id " +
                  id.dump() + "; ids must be 0.." + std::to_string(vocab.size() - 1) +
                  ", each used once");
    }
    const auto index = static_cast<uint32_t>(id.get<uint64_t>());
    tokenizer->characters_[index] = key;
    tokenizer->ids_.emplace_back(*code_point, index);
  }
  std::sort(tokenizer->ids_.begin(), tokenizer->ids_.end());
  tokenizer->unknown_ = options.unknown_characters;
  if (options.unknown_characters == UnknownCharacters::replace) {
    size_t pos = 0;
    const auto code_point = next_code_point(options.replacement, pos);
    const auto id = code_point && pos == options.replacement.size() ? tokenizer->id_of(*code_point)
                                                                    : std::nullopt;
    if (!id) {
      throw Error("the replacement for unknown characters, \"" + options.replacement +
                  "\", is not one of the vocabulary's " + std::to_string(vocab.size()) +
                  " characters");
    }
    tokenizer->replacement_id_ = *id;
  }
  return tokenizer;
}

std::unique_ptr<CharTokenizer> CharTokenizer::from_file(const std::filesystem::path& vocab_json,
                                                        TokenizerOptions options) {
  return from_json(read_text_file(vocab_json), std::move(options));
}

std::optional<uint32_t> CharTokenizer::id_of(char32_t code_point) const {
  const auto it =
      std::lower_bound(ids_.begin(), ids_.end(), std::pair<char32_t, uint32_t>{code_point, 0});
  if (it == ids_.end() || it->first != code_point) return std::nullopt;
  return it->second;
}

std::vector<uint32_t> CharTokenizer::encode(std::string_view text) const {
  std::vector<uint32_t> ids;
  size_t pos = 0;
  for (size_t index = 0; pos < text.size(); ++index) {
    const size_t start = pos;
    const auto code_point = next_code_point(text, pos);
    if (!code_point) throw Error("text is not valid UTF-8 at byte " + std::to_string(start));
    if (const auto id = id_of(*code_point)) {
      ids.push_back(*id);
    } else if (unknown_ == UnknownCharacters::replace) {
      ids.push_back(replacement_id_);
    } else if (unknown_ == UnknownCharacters::error) {
      throw Error("character " + describe_code_point(*code_point) + " at character " +
                  std::to_string(index) + " (byte " + std::to_string(start) +
                  ") is not in the vocabulary of " + std::to_string(ids_.size()) + " characters");
    }  // skip: nothing
  }
  return ids;
}

std::string CharTokenizer::token_bytes(uint32_t id) const {
  if (id >= characters_.size()) {
    throw Error("token id " + std::to_string(id) + " is outside the character vocabulary of " +
                std::to_string(characters_.size()));
  }
  return characters_[id];
}

}  // namespace wgpt::tokenizer
