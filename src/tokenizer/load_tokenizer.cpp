// What every tokenizer shares: decoding by concatenation, and choosing one for a model directory.

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
  auto file = [&](const std::string& name) -> std::filesystem::path {
    std::error_code error;
    if (!stem.empty() && std::filesystem::is_regular_file(dir / (stem + "." + name), error)) {
      return dir / (stem + "." + name);
    }
    if (std::filesystem::is_regular_file(dir / name, error)) return dir / name;
    return {};
  };
  return {file("vocab.json"), file("merges.txt"), file("tokenizer.json")};
}

std::unique_ptr<Tokenizer> load_tokenizer(const TokenizerFiles& files, TokenizerOptions options) {
  if (!files.merges_txt.empty()) {
    if (files.vocab_json.empty()) {
      throw Error(files.merges_txt.string() + " has no vocab.json beside it (BPE needs both)");
    }
    return BpeTokenizer::from_files(files.vocab_json, files.merges_txt, options);
  }
  if (!files.tokenizer_json.empty()) {
    return BpeTokenizer::from_tokenizer_json(read_text_file(files.tokenizer_json), options);
  }
  if (!files.vocab_json.empty()) return CharTokenizer::from_file(files.vocab_json);
  throw Error(
      "no tokenizer: expected vocab.json + merges.txt, tokenizer.json, or a character "
      "vocab.json");
}

std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& model_dir,
                                          TokenizerOptions options) {
  const TokenizerFiles files = TokenizerFiles::find(model_dir);
  if (files.empty() && files.merges_txt.empty()) {
    throw Error(model_dir.string() +
                " holds no tokenizer: expected vocab.json + merges.txt, tokenizer.json, or a "
                "character vocab.json");
  }
  return load_tokenizer(files, options);
}

}  // namespace wgpt::tokenizer
