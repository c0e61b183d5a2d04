#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "wgpt/model.h"

namespace wgpt::model {
namespace {

using nlohmann::json;

// The largest shapes wgpt accepts: far beyond any GPT-2 (xl: 48 layers, 1600 wide, 1024
// positions, 50257 tokens), small enough that no size computed from them overflows.
constexpr uint64_t kMaxLayers = 1024;
constexpr uint64_t kMaxWidth = 65536;
constexpr uint64_t kMaxPositions = 1 << 20;
constexpr uint64_t kMaxVocabulary = 1 << 24;
// config.json is a few hundred bytes; anything this large is not a config.
constexpr uint64_t kMaxConfigBytes = 1 << 20;

// A whole number in [1, max] under `name`.
size_t bounded_field(const json& object, const char* name, uint64_t max,
                     const std::string& source) {
  if (!object.contains(name)) throw Error(source + ": missing field '" + name + "'");
  const json& value = object.at(name);
  if (!value.is_number_unsigned() || value.get<uint64_t>() == 0 || value.get<uint64_t>() > max) {
    throw Error(source + ": field '" + name + "' must be a whole number from 1 to " +
                std::to_string(max) + ", got " + value.dump());
  }
  return static_cast<size_t>(value.get<uint64_t>());
}

void check_range(uint64_t value, uint64_t max, const char* name, const std::string& source) {
  if (value == 0 || value > max) {
    throw Error(source + ": " + name + " must be from 1 to " + std::to_string(max) + ", not " +
                std::to_string(value));
  }
}

Config fields_of(const json& object, const std::string& source) {
  if (!object.is_object()) throw Error(source + ": expected a JSON object");
  Config config;
  config.n_layer = bounded_field(object, "n_layer", kMaxLayers, source);
  config.n_head = bounded_field(object, "n_head", kMaxWidth, source);
  config.n_embd = bounded_field(object, "n_embd", kMaxWidth, source);
  config.vocab_size = bounded_field(object, "vocab_size", kMaxVocabulary, source);
  // HF's n_positions sizes the position table; older configs carry only n_ctx.
  config.n_ctx = bounded_field(object, object.contains("n_positions") ? "n_positions" : "n_ctx",
                               kMaxPositions, source);
  if (object.contains("layer_norm_epsilon")) {
    const json& eps = object.at("layer_norm_epsilon");
    if (!eps.is_number() || !(eps.get<double>() > 0) || !(eps.get<double>() < 1)) {
      throw Error(source + ": field 'layer_norm_epsilon' must be a number in (0, 1), got " +
                  eps.dump());
    }
    config.layer_norm_epsilon = eps.get<float>();
  }
  if (object.contains("eos_token_id") && !object.at("eos_token_id").is_null()) {
    const json& eos = object.at("eos_token_id");
    if (!eos.is_number_unsigned() || eos.get<uint64_t>() >= config.vocab_size) {
      throw Error(source + ": field 'eos_token_id' must be an id below vocab_size, got " +
                  eos.dump());
    }
    config.eos_token_id = static_cast<uint32_t>(eos.get<uint64_t>());
  }
  if (object.contains("tokenizer") && object.at("tokenizer").is_string()) {
    config.tokenizer = object.at("tokenizer").get<std::string>();
  }
  return config;
}

}  // namespace

void Config::check(const std::string& source) const {
  check_range(n_layer, kMaxLayers, "n_layer", source);
  check_range(n_embd, kMaxWidth, "n_embd", source);
  check_range(n_head, n_embd, "n_head", source);
  check_range(n_ctx, kMaxPositions, "n_ctx", source);
  check_range(vocab_size, kMaxVocabulary, "vocab_size", source);
  if (n_embd % n_head != 0) {
    throw Error(source + ": n_embd (" + std::to_string(n_embd) +
                ") must be a multiple of n_head (" + std::to_string(n_head) + ")");
  }
  if (!(layer_norm_epsilon > 0 && layer_norm_epsilon < 1)) {
    throw Error(source + ": layer_norm_epsilon must be in (0, 1)");
  }
  if (eos_token_id && *eos_token_id >= vocab_size) {
    throw Error(source + ": eos_token_id " + std::to_string(*eos_token_id) +
                " is not below vocab_size " + std::to_string(vocab_size));
  }
  // Every tensor of the model is addressed with size_t (32 bits in the browser build).
  const uint64_t bytes = parameter_count() * sizeof(float);
  if (bytes / sizeof(float) != parameter_count() || bytes > std::numeric_limits<size_t>::max()) {
    throw Error(source + ": a model of " + std::to_string(parameter_count()) +
                " parameters does not fit this build's address space");
  }
}

float Config::attention_scale() const { return 1.0f / std::sqrt(static_cast<float>(head_dim())); }

Config Config::from_json(const std::string& text, const std::string& source) {
  Config config;
  try {
    config = fields_of(json::parse(text), source);
  } catch (const json::exception& error) {
    // Malformed JSON, or a number nlohmann cannot hold (1e400).
    throw Error(source + ": not a valid config (" + error.what() + ")");
  }
  config.check(source);
  return config;
}

Config Config::load(const std::filesystem::path& model_dir) {
  const auto path = model_dir / "config.json";
  return from_json(io::read_file(path, kMaxConfigBytes, "config.json"), path.string());
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

uint64_t Config::parameter_count() const {
  const uint64_t c = n_embd;
  const uint64_t per_layer =
      2 * c + (c * 3 * c + 3 * c) + (c * c + c) + 2 * c + (c * 4 * c + 4 * c) + (4 * c * c + c);
  return vocab_size * c + n_ctx * c + n_layer * per_layer + 2 * c;
}

}  // namespace wgpt::model
