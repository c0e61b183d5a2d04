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

std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& model_dir,
                                          TokenizerOptions options) {
  std::error_code error;
  if (!std::filesystem::is_directory(model_dir, error)) {
    throw Error(model_dir.string() + (std::filesystem::exists(model_dir, error)
                                          ? " is not a directory: give the model directory"
                                          : " does not exist"));
  }
  const auto vocab = model_dir / "vocab.json";
  if (std::filesystem::exists(model_dir / "merges.txt")) {
    return BpeTokenizer::from_files(vocab, model_dir / "merges.txt", options);
  }
  if (std::filesystem::exists(model_dir / "tokenizer.json")) {
    return BpeTokenizer::from_tokenizer_json(read_text_file(model_dir / "tokenizer.json"), options);
  }
  if (std::filesystem::exists(vocab)) return CharTokenizer::from_file(vocab);
  throw Error(model_dir.string() +
              " holds no tokenizer: expected vocab.json + merges.txt, tokenizer.json, or a "
              "character vocab.json");
}

}  // namespace wgpt::tokenizer
