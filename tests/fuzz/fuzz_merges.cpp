// libFuzzer target: merges.txt on arbitrary bytes, over a vocabulary made to fit it — GPT-2's 256
// byte tokens plus both parts and the result of every "left right" line — so that most inputs
// load and their merges really run. Loading must succeed or throw wgpt::Error; a tokenizer that
// loads encodes texts to ids inside its vocabulary that decode back to the text.

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "tokenizer/byte_alphabet.h"
#include "tokenizer/utf8.h"
#include "wgpt/tokenizer.h"

namespace {

std::string vocabulary_for(std::string_view merges) {
  std::unordered_map<std::string, size_t> ids;  // (nlohmann's ordered_json looks up linearly)
  auto add = [&](const std::string& token) { ids.try_emplace(token, ids.size()); };
  for (const char32_t code_point : wgpt::tokenizer::byte_to_code_point()) {
    std::string token;
    wgpt::tokenizer::append_utf8(token, code_point);
    add(token);
  }
  for (size_t start = 0; start < merges.size();) {
    const size_t end = std::min(merges.find('\n', start), merges.size());
    const std::string line(merges.substr(start, end - start));
    const size_t space = line.find(' ');
    if (space != std::string::npos && space > 0 && space + 1 < line.size()) {
      add(line.substr(0, space));
      add(line.substr(space + 1));
      add(line.substr(0, space) + line.substr(space + 1));
    }
    start = end + 1;
  }
  nlohmann::json vocab = nlohmann::json::object();
  for (const auto& [token, id] : ids) vocab[token] = id;
  return vocab.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using wgpt::tokenizer::BpeTokenizer;
  const std::string_view merges(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<BpeTokenizer> tokenizer;
  try {
    tokenizer = BpeTokenizer::from_vocab_and_merges(vocabulary_for(merges), merges);
  } catch (const wgpt::Error&) {
    return 0;
  }
  for (const std::string_view text : {std::string_view("Hello world, the quick brown fox."),
                                      std::string_view("  tab\tnew\nline")}) {
    const std::vector<uint32_t> ids = tokenizer->encode(text);
    for (const uint32_t id : ids) {
      if (id >= tokenizer->vocab_size()) std::abort();
    }
    if (tokenizer->decode(ids) != text) std::abort();
  }
  return 0;
}
