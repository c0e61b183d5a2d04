#pragma once
// The files a GPT-2 BPE tokenizer comes from, parsed and checked: vocab.json + merges.txt, or HF's
// tokenizer.json holding both.

#include <string_view>

#include "wgpt/tokenizer.h"

namespace wgpt::tokenizer {

// Both give a Vocabulary of kind bpe.
Vocabulary parse_vocab_and_merges(std::string_view vocab_json, std::string_view merges_txt);
Vocabulary parse_tokenizer_json(std::string_view tokenizer_json);

}  // namespace wgpt::tokenizer
