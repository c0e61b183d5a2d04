#include "session.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace wgpt::web {

Session& session() {
  static Session instance;
  return instance;
}

void check_ready(bool needs_model) {
  if (!session().context && !session().cpu) {
    throw Error("the GPU device is not ready: call init() first");
  }
  if (needs_model && !session().model) throw Error("no model is loaded: call loadModel() first");
  if (session().busy) throw Error("a run is in progress: stop it or wait for it to finish");
}

namespace {

std::string js_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

double OptionReader::number(const char* name, double fallback) const {
  const val value = options_[name];
  if (value.isUndefined() || value.isNull()) return fallback;
  if (value.typeOf().as<std::string>() != "number") {
    throw Error(std::string("options.") + name + " must be a number");
  }
  return value.as<double>();
}

double OptionReader::whole(const char* name, double fallback, double limit) const {
  const double value = number(name, fallback);
  if (!(value >= 0 && value <= limit && std::floor(value) == value)) {
    throw Error(std::string("options.") + name + " must be a whole number from 0 to " +
                js_number(limit) + ", not " + js_number(value));
  }
  return value;
}

std::map<uint32_t, float> OptionReader::biases(const char* name) const {
  const val value = options_[name];
  std::map<uint32_t, float> result;
  if (value.isUndefined() || value.isNull()) return result;
  if (value.typeOf().as<std::string>() != "object") {
    throw Error(std::string("options.") + name + " must be an object of {tokenId: bias}");
  }
  const val keys = val::global("Object").call<val>("keys", value);
  for (size_t i = 0; i < keys["length"].as<size_t>(); ++i) {
    const std::string key = keys[i].as<std::string>();
    const OptionReader entry(value);
    const double id = std::strtod(key.c_str(), nullptr);
    if (key.empty() || key.find_first_not_of("0123456789") != std::string::npos ||
        id > UINT32_MAX) {
      throw Error(std::string("options.") + name + " has the key '" + key +
                  "', which is not a token id");
    }
    result[static_cast<uint32_t>(id)] = static_cast<float>(entry.number(key.c_str(), 0));
  }
  return result;
}

generate::GenerateOptions generate_options(const val& options) {
  const OptionReader read(options);
  constexpr double kSizeLimit = static_cast<double>(SIZE_MAX);
  generate::GenerateOptions result;
  result.max_new_tokens = static_cast<size_t>(read.whole("maxTokens", 64, kSizeLimit));
  generate::SamplingOptions& sampling = result.sampling;
  sampling.greedy = options["greedy"].isTrue();
  sampling.temperature = static_cast<float>(read.number("temperature", 1.0));
  sampling.top_k = static_cast<size_t>(read.whole("topK", 0, kSizeLimit));
  sampling.top_p = static_cast<float>(read.number("topP", 1.0));
  sampling.min_p = static_cast<float>(read.number("minP", 0.0));
  sampling.repeat_penalty = static_cast<float>(read.number("repeatPenalty", 1.0));
  sampling.presence_penalty = static_cast<float>(read.number("presencePenalty", 0.0));
  sampling.frequency_penalty = static_cast<float>(read.number("frequencyPenalty", 0.0));
  sampling.penalty_last_n = static_cast<size_t>(read.whole("repeatLastN", 64, kSizeLimit));
  sampling.logit_bias = read.biases("logitBias");
  sampling.seed = static_cast<uint64_t>(read.whole("seed", 0, 9007199254740991.0));
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
