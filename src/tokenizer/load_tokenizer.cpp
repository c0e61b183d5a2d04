// What every tokenizer shares: decoding by concatenation, vocabularies as data, and choosing a
// tokenizer for a model directory.

#include <nlohmann/json.hpp>

#include "tokenizer/bpe_vocabulary.h"
#include "tokenizer/text_file.h"
#include "wgpt/tokenizer.h"

namespace wgpt::tokenizer {

std::string Tokenizer::decode(std::span<const uint32_t> ids) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= vocab_size()) {
      throw Error("token id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                  " is outside the vocabulary of " + std::to_string(vocab_size()));
    }
    text += token_bytes(ids[i]);
  }
  return text;
}

Vocabulary read_vocabulary(const std::filesystem::path& model_dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(model_dir, error)) {
    throw Error(model_dir.string() + (std::filesystem::exists(model_dir, error)
                                          ? " is not a directory: give the model directory"
                                          : " does not exist"));
  }
  const auto vocab = model_dir / "vocab.json";
  if (std::filesystem::exists(model_dir / "merges.txt")) {
    return parse_vocab_and_merges(read_text_file(vocab), read_text_file(model_dir / "merges.txt"));
  }
  if (std::filesystem::exists(model_dir / "tokenizer.json")) {
    return parse_tokenizer_json(read_text_file(model_dir / "tokenizer.json"));
  }
  if (std::filesystem::exists(vocab)) {
    // Read through the tokenizer, which checks every key is one character and the ids are dense.
    const auto characters = CharTokenizer::from_file(vocab);
    Vocabulary vocabulary{Vocabulary::Kind::characters, {}, {}};
    for (uint32_t id = 0; id < characters->vocab_size(); ++id) {
      vocabulary.tokens.push_back(characters->token_bytes(id));
    }
    return vocabulary;
  }
  throw Error(model_dir.string() +
              " holds no tokenizer: expected vocab.json + merges.txt, tokenizer.json, or a "
              "character vocab.json");
}

std::unique_ptr<Tokenizer> make_tokenizer(const Vocabulary& vocabulary, TokenizerOptions options) {
  if (vocabulary.kind == Vocabulary::Kind::bpe) {
    return BpeTokenizer::from_vocabulary(vocabulary, options);
  }
  return CharTokenizer::from_json(vocabulary.files().at("vocab.json"));
}

std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& model_dir,
                                          TokenizerOptions options) {
  return make_tokenizer(read_vocabulary(model_dir), options);
}

std::map<std::string, std::string> Vocabulary::files() const {
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (size_t id = 0; id < tokens.size(); ++id) vocab[tokens[id]] = id;
  std::string vocab_json;
  try {
    vocab_json = vocab.dump() + "\n";
  } catch (const nlohmann::json::exception&) {
    throw Error("the vocabulary has a token that is not valid UTF-8, which vocab.json cannot hold");
  }
  std::map<std::string, std::string> files{{"vocab.json", std::move(vocab_json)}};
  if (kind == Kind::bpe) {
    std::string lines = "#version: 0.2\n";
    for (const auto& [left, right] : merges) lines += left + " " + right + "\n";
    files.emplace("merges.txt", std::move(lines));
  }
  return files;
}

}  // namespace wgpt::tokenizer
