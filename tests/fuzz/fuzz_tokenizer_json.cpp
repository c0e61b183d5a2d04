// libFuzzer target: HF's tokenizer.json on arbitrary bytes. Loading must succeed or throw
// wgpt::Error; a tokenizer that loads encodes (or refuses with wgpt::Error, when its vocabulary
// lacks a byte) texts to ids inside its vocabulary that decode back to the text.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "wgpt/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using wgpt::tokenizer::BpeTokenizer;
  std::unique_ptr<BpeTokenizer> tokenizer;
  try {
    tokenizer = BpeTokenizer::from_tokenizer_json(
        std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const wgpt::Error&) {
    return 0;
  }
  for (const std::string_view text :
       {std::string_view("Hello world"), std::string_view("ab ba\n")}) {
    std::vector<uint32_t> ids;
    try {
      ids = tokenizer->encode(text);
    } catch (const wgpt::Error&) {
      continue;  // a byte the vocabulary has no token for
    }
    for (const uint32_t id : ids) {
      if (id >= tokenizer->vocab_size()) std::abort();
    }
    if (tokenizer->decode(ids) != text) std::abort();
  }
  return 0;
}
