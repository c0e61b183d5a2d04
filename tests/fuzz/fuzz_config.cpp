// libFuzzer target: config.json on arbitrary bytes. Parsing must succeed or throw wgpt::Error
// naming the file (never nlohmann's own exceptions); a config that parses is within the limits
// Config::check states and survives to_json → from_json unchanged.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "wgpt/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using wgpt::model::Config;
  Config config;
  try {
    config = Config::from_json(std::string(reinterpret_cast<const char*>(data), size),
                               "fuzz/config.json");
  } catch (const wgpt::Error& error) {
    if (std::string(error.what()).rfind("fuzz/config.json", 0) != 0) std::abort();
    return 0;
  }
  if (config.n_embd % config.n_head != 0 || config.head_dim() == 0) std::abort();
  const Config again = Config::from_json(config.to_json());
  if (again.n_layer != config.n_layer || again.n_head != config.n_head ||
      again.n_embd != config.n_embd || again.n_ctx != config.n_ctx ||
      again.vocab_size != config.vocab_size || again.eos_token_id != config.eos_token_id ||
      again.layer_norm_epsilon != config.layer_norm_epsilon ||
      again.tokenizer != config.tokenizer) {
    std::abort();
  }
  return 0;
}
