#include "token_json.h"

namespace wgpt::cli {

nlohmann::ordered_json token_json(const tokenizer::Tokenizer& tokenizer, uint32_t id) {
  return {{"id", id}, {"text", tokenizer.token_bytes(id)}};
}

nlohmann::ordered_json top_json(const tokenizer::Tokenizer& tokenizer,
                                const std::vector<model::TopToken>& top) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const model::TopToken& candidate : top) {
    nlohmann::ordered_json entry = token_json(tokenizer, candidate.id);
    entry["p"] = candidate.probability;
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string dump_json(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace wgpt::cli
