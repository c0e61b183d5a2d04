#pragma once
// Tokens and top-n lists as JSON, for the commands that print or write them (trace, score).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgpt/probe.h"
#include "wgpt/tokenizer.h"

namespace wgpt::cli {

// {"id": id, "text": the token's bytes}.
nlohmann::ordered_json token_json(const tokenizer::Tokenizer& tokenizer, uint32_t id);
// [{"id", "text", "p"}, ...].
nlohmann::ordered_json top_json(const tokenizer::Tokenizer& tokenizer,
                                const std::vector<model::TopToken>& top);
// Compact JSON text; token bytes that are not valid UTF-8 (part of a character) become U+FFFD.
std::string dump_json(const nlohmann::ordered_json& value);

}  // namespace wgpt::cli
