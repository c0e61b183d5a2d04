#include "session.h"

namespace wgpt::web {

Session& session() {
  static Session instance;
  return instance;
}

void check_ready(bool needs_model) {
  if (!session().context) throw Error("the GPU device is not ready: call init() first");
  if (needs_model && !session().model) throw Error("no model is loaded: call loadModel() first");
  if (session().busy) throw Error("a run is in progress: stop it or wait for it to finish");
}

generate::GenerateOptions generate_options(const val& options) {
  auto number = [&](const char* name, double fallback) {
    const val value = options[name];
    return value.isUndefined() || value.isNull() ? fallback : value.as<double>();
  };
  generate::GenerateOptions result;
  result.max_new_tokens = static_cast<size_t>(number("maxTokens", 64));
  result.sampling.greedy = options["greedy"].isTrue();
  result.sampling.temperature = static_cast<float>(number("temperature", 1.0));
  result.sampling.top_k = static_cast<size_t>(number("topK", 0));
  result.sampling.top_p = static_cast<float>(number("topP", 1.0));
  result.sampling.seed = static_cast<uint64_t>(number("seed", 0));
  return result;
}

std::unique_ptr<tokenizer::Tokenizer> make_tokenizer(const model::Config& config,
                                                     const std::string& vocab_json,
                                                     const std::string& merges_txt) {
  if (vocab_json.empty()) throw Error("the model has no vocab.json");
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  if (!merges_txt.empty()) {
    tokenizer = tokenizer::BpeTokenizer::from_vocab_and_merges(vocab_json, merges_txt);
  } else if (config.tokenizer == "gpt2-bpe") {
    throw Error("a GPT-2 BPE model needs merges.txt");
  } else {
    tokenizer = tokenizer::CharTokenizer::from_json(vocab_json);
  }
  // A model's embedding table may be padded past its tokenizer (nanoGPT pads to 50304).
  if (tokenizer->vocab_size() > config.vocab_size) {
    throw Error("the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                " tokens but config.json says vocab_size " + std::to_string(config.vocab_size));
  }
  return tokenizer;
}

std::vector<uint8_t> bytes_of(const val& array) {
  std::vector<uint8_t> bytes(array["length"].as<size_t>());
  val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<void>("set", array);
  return bytes;
}

}  // namespace wgpt::web
