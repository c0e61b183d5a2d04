#include <sstream>

#include "wgpt/model.h"

namespace wgpt::model {
namespace {

constexpr size_t kGpt2Vocab = 50257;
constexpr uint32_t kGpt2EndOfText = 50256;

Config gpt2_shape(size_t layers, size_t heads, size_t width) {
  Config config;
  config.n_layer = layers;
  config.n_head = heads;
  config.n_embd = width;
  config.n_ctx = 1024;
  config.vocab_size = kGpt2Vocab;
  config.eos_token_id = kGpt2EndOfText;
  config.tokenizer = "gpt2-bpe";
  return config;
}

}  // namespace

Config named_config(const std::string& name) {
  if (name == "gpt2") return gpt2_shape(12, 12, 768);
  if (name == "gpt2-medium") return gpt2_shape(24, 16, 1024);
  if (name == "gpt2-large") return gpt2_shape(36, 20, 1280);
  if (name == "gpt2-xl") return gpt2_shape(48, 25, 1600);
  // N_LAYER,N_HEAD,N_EMBD,N_CTX,VOCAB: decimal digits only (no sign, space or exponent), each
  // field short enough for a 32-bit size_t; the ranges are Config::check's. The extra comma makes
  // a trailing comma of `name` an empty (refused) field.
  std::vector<size_t> fields;
  std::stringstream stream(name + ",");
  std::string field;
  while (std::getline(stream, field, ',')) {
    const bool digits = !field.empty() && field.size() <= 9 &&
                        field.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      fields.clear();
      break;
    }
    fields.push_back(std::stoul(field));
  }
  if (fields.size() != 5) {
    throw Error("unknown model config '" + name +
                "' (expected gpt2, gpt2-medium, gpt2-large, gpt2-xl or "
                "N_LAYER,N_HEAD,N_EMBD,N_CTX,VOCAB with whole numbers)");
  }
  Config config;
  config.n_layer = fields[0];
  config.n_head = fields[1];
  config.n_embd = fields[2];
  config.n_ctx = fields[3];
  config.vocab_size = fields[4];
  if (config.vocab_size == kGpt2Vocab) {
    config.eos_token_id = kGpt2EndOfText;
    config.tokenizer = "gpt2-bpe";
  }
  config.check("model config '" + name + "'");
  return config;
}

}  // namespace wgpt::model
