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
  // N_LAYER,N_HEAD,N_EMBD,N_CTX,VOCAB
  std::vector<size_t> fields;
  std::stringstream stream(name);
  std::string field;
  while (std::getline(stream, field, ',')) {
    size_t used = 0;
    unsigned long long value = 0;
    try {
      value = std::stoull(field, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != field.size() || field.empty() || value == 0 || field[0] == '-') {
      fields.clear();
      break;
    }
    fields.push_back(value);
  }
  if (fields.size() != 5) {
    throw Error("unknown model config '" + name +
                "' (expected gpt2, gpt2-medium, gpt2-large, gpt2-xl or "
                "N_LAYER,N_HEAD,N_EMBD,N_CTX,VOCAB with positive integers)");
  }
  Config config;
  config.n_layer = fields[0];
  config.n_head = fields[1];
  config.n_embd = fields[2];
  config.n_ctx = fields[3];
  config.vocab_size = fields[4];
  if (config.n_embd % config.n_head != 0) {
    throw Error("model config '" + name + "': N_EMBD must be a multiple of N_HEAD");
  }
  if (config.vocab_size == kGpt2Vocab) {
    config.eos_token_id = kGpt2EndOfText;
    config.tokenizer = "gpt2-bpe";
  }
  return config;
}

}  // namespace wgpt::model
