// libFuzzer target: a character vocab.json on arbitrary bytes. Loading must succeed or throw
// wgpt::Error; a vocabulary that loads encodes each of its characters to its own id, and decodes
// the concatenation of all of them back to the same text.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "wgpt/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using wgpt::tokenizer::CharTokenizer;
  std::unique_ptr<CharTokenizer> tokenizer;
  try {
    tokenizer =
        CharTokenizer::from_json(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const wgpt::Error&) {
    return 0;
  }
  std::string text;
  std::vector<uint32_t> ids;
  for (uint32_t id = 0; id < tokenizer->vocab_size(); ++id) {
    const std::string character = tokenizer->token_bytes(id);
    if (tokenizer->encode(character) != std::vector<uint32_t>{id}) std::abort();
    text += character;
    ids.push_back(id);
  }
  if (tokenizer->encode(text) != ids || tokenizer->decode(ids) != text) std::abort();
  return 0;
}
