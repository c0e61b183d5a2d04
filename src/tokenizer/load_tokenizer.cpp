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

TokenizerFiles TokenizerFiles::find(const std::filesystem::path& dir, const std::string& stem) {
  // Whatever is there counts, a special file too: reading it then says what is wrong with it.
  auto file = [&](const std::string& name) -> std::filesystem::path {
    std::error_code error;
    if (!stem.empty() && std::filesystem::exists(dir / (stem + "." + name), error)) {
      return dir / (stem + "." + name);
    }
    if (std::filesystem::exists(dir / name, error)) return dir / name;
    return {};
  };
  return {file("vocab.json"), file("merges.txt"), file("tokenizer.json")};
}

Vocabulary read_vocabulary(const TokenizerFiles& files) {
  if (!files.merges_txt.empty()) {
    if (files.vocab_json.empty()) {
      throw Error(files.merges_txt.string() + " has no vocab.json beside it (BPE needs both)");
    }
    return parse_vocab_and_merges(read_text_file(files.vocab_json),
                                  read_text_file(files.merges_txt));
  }
  if (!files.tokenizer_json.empty()) {
    return parse_tokenizer_json(read_text_file(files.tokenizer_json));
  }
  if (!files.vocab_json.empty()) {
    // Read through the tokenizer, which checks every key is one character and the ids are dense.
    const auto characters = CharTokenizer::from_file(files.vocab_json);
    Vocabulary vocabulary{Vocabulary::Kind::characters, {}, {}};
    for (uint32_t id = 0; id < characters->vocab_size(); ++id) {
      vocabulary.tokens.push_back(characters->token_bytes(id));
    }
    return vocabulary;
  }
  throw Error(
      "no tokenizer: expected vocab.json + merges.txt, tokenizer.json, or a character "
      "vocab.json");
}

Vocabulary read_vocabulary(const std::filesystem::path& model_dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(model_dir, error)) {
    throw Error(model_dir.string() + (std::filesystem::exists(model_dir, error)
                                          ? " is not a directory: give the model directory"
                                          : " does not exist"));
  }
  const TokenizerFiles files = TokenizerFiles::find(model_dir);
  if (files.empty() && files.merges_txt.empty()) {
    throw Error(model_dir.string() +
                " holds no tokenizer: expected vocab.json + merges.txt, tokenizer.json, or a "
                "character vocab.json");
  }
  return read_vocabulary(files);
}

std::unique_ptr<Tokenizer> make_tokenizer(const Vocabulary& vocabulary, TokenizerOptions options) {
  if (vocabulary.kind == Vocabulary::Kind::bpe) {
    return BpeTokenizer::from_vocabulary(vocabulary, options);
  }
  return CharTokenizer::from_json(vocabulary.files().at("vocab.json"), std::move(options));
}

std::unique_ptr<Tokenizer> load_tokenizer(const TokenizerFiles& files, TokenizerOptions options) {
  return make_tokenizer(read_vocabulary(files), options);
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
