#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "wgpt/model.h"

namespace wgpt::model {
namespace {

using nlohmann::json;

size_t positive_field(const json& object, const char* name, const std::string& source) {
  if (!object.contains(name)) throw Error(source + ": missing field '" + name + "'");
  const json& value = object.at(name);
  if (!value.is_number_integer() || value.get<int64_t>() <= 0) {
    throw Error(source + ": field '" + name + "' must be a positive integer, got " + value.dump());
  }
  return value.get<size_t>();
}

}  // namespace

Config Config::from_json(const std::string& text, const std::string& source) {
  json object;
  try {
    object = json::parse(text);
  } catch (const json::parse_error& error) {
    throw Error(source + ": not valid JSON (" + error.what() + ")");
  }
  if (!object.is_object()) throw Error(source + ": expected a JSON object");
  Config config;
  config.n_layer = positive_field(object, "n_layer", source);
  config.n_head = positive_field(object, "n_head", source);
  config.n_embd = positive_field(object, "n_embd", source);
  config.vocab_size = positive_field(object, "vocab_size", source);
  // HF's n_positions sizes the position table; older configs carry only n_ctx.
  config.n_ctx = object.contains("n_positions") ? positive_field(object, "n_positions", source)
                                                : positive_field(object, "n_ctx", source);
  if (object.contains("layer_norm_epsilon")) {
    const json& eps = object.at("layer_norm_epsilon");
    if (!eps.is_number() || eps.get<double>() <= 0) {
      throw Error(source + ": field 'layer_norm_epsilon' must be a positive number");
    }
    config.layer_norm_epsilon = eps.get<float>();
  }
  if (object.contains("eos_token_id") && !object.at("eos_token_id").is_null()) {
    const json& eos = object.at("eos_token_id");
    if (!eos.is_number_integer() || eos.get<int64_t>() < 0 ||
        eos.get<uint64_t>() >= config.vocab_size) {
      throw Error(source + ": field 'eos_token_id' must be an id below vocab_size");
    }
    config.eos_token_id = eos.get<uint32_t>();
  }
  if (object.contains("tokenizer") && object.at("tokenizer").is_string()) {
    config.tokenizer = object.at("tokenizer").get<std::string>();
  }
  if (config.n_embd % config.n_head != 0) {
    throw Error(source + ": n_embd (" + std::to_string(config.n_embd) +
                ") must be a multiple of n_head (" + std::to_string(config.n_head) + ")");
  }
  return config;
}

Config Config::load(const std::filesystem::path& model_dir) {
  const auto path = model_dir / "config.json";
  std::ifstream file(path);
  if (!file) throw Error("cannot read " + path.string());
  std::stringstream text;
  text << file.rdbuf();
  return from_json(text.str(), path.string());
}

std::string Config::to_json() const {
  json object = {
      {"model_type", "gpt2"},
      {"architectures", {"GPT2LMHeadModel"}},
      {"activation_function", "gelu_new"},
      {"n_layer", n_layer},
      {"n_head", n_head},
      {"n_embd", n_embd},
      {"n_positions", n_ctx},
      {"n_ctx", n_ctx},
      {"vocab_size", vocab_size},
      {"layer_norm_epsilon", layer_norm_epsilon},
      {"tie_word_embeddings", true},
  };
  if (eos_token_id) {
    object["eos_token_id"] = *eos_token_id;
    object["bos_token_id"] = *eos_token_id;
  }
  if (!tokenizer.empty()) object["tokenizer"] = tokenizer;
  return object.dump(2) + "\n";
}

size_t Config::parameter_count() const {
  const size_t c = n_embd;
  const size_t per_layer =
      2 * c + (c * 3 * c + 3 * c) + (c * c + c) + 2 * c + (c * 4 * c + 4 * c) + (4 * c * c + c);
  return vocab_size * c + n_ctx * c + n_layer * per_layer + 2 * c;
}

}  // namespace wgpt::model
