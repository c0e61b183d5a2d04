#include "tokenizer/bpe_vocabulary.h"

#include <nlohmann/json.hpp>

#include "wgpt/error.h"

namespace wgpt::tokenizer {
namespace {

using nlohmann::json;

json parse_json(std::string_view text, const char* what) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    throw Error(std::string(what) + " is not valid JSON: " + e.what());
  }
}

// Ids must be exactly 0..n-1, each once, so that decode can index by id.
void add_token(std::vector<std::string>& tokens, std::vector<bool>& seen, const std::string& token,
               const json& id, const char* what) {
  if (!id.is_number_unsigned()) {
    throw Error(std::string(what) + ": token '" + token + "' has id " + id.dump() +
                ", not a non-negative integer");
  }
  const auto value = id.get<uint64_t>();
  if (value >= tokens.size() || seen[value]) {
    throw Error(std::string(what) + ": token '" + token + "' has id " + std::to_string(value) +
                "; ids must be 0.." + std::to_string(tokens.size() - 1) + ", each used once");
  }
  tokens[value] = token;
  seen[value] = true;
}

std::vector<std::string> parse_vocab(const json& vocab, const json& added_tokens,
                                     const char* what) {
  if (!vocab.is_object()) throw Error(std::string(what) + ": the vocabulary is not an object");
  // Added tokens (tokenizer.json) join the vocabulary unless it already holds them.
  std::vector<std::pair<std::string, json>> extra;
  for (const json& added : added_tokens) {
    if (!added.is_object() || !added.contains("content") || !added["content"].is_string() ||
        !added.contains("id")) {
      throw Error(std::string(what) + ": an added token lacks \"content\" or \"id\"");
    }
    const auto content = added["content"].get<std::string>();
    if (!vocab.contains(content)) extra.emplace_back(content, added["id"]);
  }
  if (vocab.empty()) throw Error(std::string(what) + ": the vocabulary is empty");
  std::vector<std::string> tokens(vocab.size() + extra.size());
  std::vector<bool> seen(tokens.size(), false);
  for (const auto& [token, id] : vocab.items()) add_token(tokens, seen, token, id, what);
  for (const auto& [token, id] : extra) add_token(tokens, seen, token, id, what);
  return tokens;
}

std::pair<std::string, std::string> split_merge(std::string_view line, size_t line_number,
                                                const char* what) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
      line.find(' ', space + 1) != std::string_view::npos) {
    throw Error(std::string(what) + " line " + std::to_string(line_number) + " is not a pair \"" +
                std::string(line.substr(0, 80)) + "\"");
  }
  return {std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
}

// A BPE without merges splits every word into single bytes: text that encodes, but not as the
// model was trained. An empty merges.txt is a broken download, not a tokenizer.
void require_merges(const Vocabulary& vocabulary, const char* what) {
  if (vocabulary.merges.empty()) {
    throw Error(std::string(what) + " holds no merges: a BPE tokenizer needs its merge rules");
  }
}

}  // namespace

Vocabulary parse_vocab_and_merges(std::string_view vocab_json, std::string_view merges_txt) {
  Vocabulary vocabulary;
  vocabulary.tokens =
      parse_vocab(parse_json(vocab_json, "vocab.json"), json::array(), "vocab.json");
  size_t line_number = 0;
  while (!merges_txt.empty()) {
    const size_t end = merges_txt.find('\n');
    std::string_view line = merges_txt.substr(0, end);
    merges_txt.remove_prefix(end == std::string_view::npos ? merges_txt.size() : end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_number == 1 && line.starts_with("#version"))) continue;
    vocabulary.merges.push_back(split_merge(line, line_number, "merges.txt"));
  }
  require_merges(vocabulary, "merges.txt");
  return vocabulary;
}

Vocabulary parse_tokenizer_json(std::string_view tokenizer_json) {
  const char* what = "tokenizer.json";
  const json root = parse_json(tokenizer_json, what);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) {
    throw Error("tokenizer.json has no \"model\" object");
  }
  const json& model = root["model"];
  if (model.contains("type") && model["type"] != "BPE") {
    throw Error("tokenizer.json holds a " + model["type"].dump() + " model; wgpt reads BPE only");
  }
  if (!model.contains("vocab") || !model.contains("merges") || !model["merges"].is_array()) {
    throw Error("tokenizer.json's model lacks \"vocab\" or a \"merges\" array");
  }
  const json added = root.contains("added_tokens") && root["added_tokens"].is_array()
                         ? root["added_tokens"]
                         : json::array();
  Vocabulary vocabulary;
  vocabulary.tokens = parse_vocab(model["vocab"], added, what);
  size_t index = 0;
  for (const json& merge : model["merges"]) {
    ++index;
    if (merge.is_string()) {
      vocabulary.merges.push_back(
          split_merge(merge.get<std::string>(), index, "tokenizer.json merge"));
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() &&
               merge[1].is_string()) {
      vocabulary.merges.emplace_back(merge[0].get<std::string>(), merge[1].get<std::string>());
    } else {
      throw Error("tokenizer.json merge " + std::to_string(index) +
                  " is neither \"a b\" nor [a, b]");
    }
  }
  require_merges(vocabulary, "tokenizer.json");
  return vocabulary;
}

}  // namespace wgpt::tokenizer
