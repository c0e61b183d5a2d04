#pragma once
// The files a GPT-2 BPE tokenizer comes from, parsed and checked: vocab.json + merges.txt, or HF's
// tokenizer.json holding both.

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wgpt::tokenizer {

struct BpeVocabulary {
  std::vector<std::string> tokens;  // id -> token, spelled in GPT-2's byte alphabet
  std::vector<std::pair<std::string, std::string>> merges;  // in rank order
};

BpeVocabulary parse_vocab_and_merges(std::string_view vocab_json, std::string_view merges_txt);
BpeVocabulary parse_tokenizer_json(std::string_view tokenizer_json);

}  // namespace wgpt::tokenizer
