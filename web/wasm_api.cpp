// The C++ half of the JavaScript API (web/wgpt.js wraps it in promises): one WebGPU device, one
// loaded model, and asynchronous calls that report to JavaScript callbacks. Every entry point
// catches what the library throws and hands JavaScript the message: synchronous calls return
// {error}, asynchronous ones call done(message). Nothing here blocks: each GPU step completes from
// the browser's event loop.
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "js_values.h"
#include "wgpt/generate.h"
#include "wgpt/io.h"
#include "wgpt/model.h"
#include "wgpt/probe.h"
#include "wgpt/tokenizer.h"

namespace wgpt::web {
namespace {

struct Session {
  std::shared_ptr<gpu::Context> context;
  std::unique_ptr<model::Model> model;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  size_t weight_bytes = 0;
  std::string format;
  // One run at a time: the model and tokenizer must outlive it, and the page has one output.
  bool busy = false;
  bool stop_requested = false;
};

Session& session() {
  static Session instance;
  return instance;
}

// done(error, value): every asynchronous call reports this way.
template <class T, class ToJs>
void settle(val& done, Result<T>& result, ToJs to_js) {
  if (result.ok()) {
    done(val::null(), to_js(result.value()));
  } else {
    done(std::string(result.error().what()));
  }
}

void check_ready(bool for_a_run) {
  if (!session().context) throw Error("the GPU device is not ready: call init() first");
  if (for_a_run && !session().model) throw Error("no model is loaded: call loadModel() first");
  if (session().busy) throw Error("a run is in progress: stop it or wait for it to finish");
}

// Marks the session busy for one asynchronous run, and frees it if the run never started.
class RunGuard {
 public:
  RunGuard() { session().busy = true; }
  ~RunGuard() {
    if (!started_) session().busy = false;
  }
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;
  // From here the run's completion frees the session.
  void started() { started_ = true; }

 private:
  bool started_ = false;
};

val info() {
  const Session& s = session();
  val result = val::object();
  result.set("adapter", s.context ? adapter_to_js(s.context->adapter_info()) : val::null());
  if (!s.model) {
    result.set("model", val::null());
    return result;
  }
  const model::Config& config = s.model->config();
  val model = val::object();
  model.set("nLayer", config.n_layer);
  model.set("nHead", config.n_head);
  model.set("nEmbd", config.n_embd);
  model.set("nCtx", config.n_ctx);
  model.set("vocabSize", config.vocab_size);
  model.set("parameters", static_cast<double>(config.parameter_count()));
  model.set("tokenizer", std::string(s.tokenizer->kind()));
  model.set("weightBytes", static_cast<double>(s.weight_bytes));
  model.set("format", s.format);
  result.set("model", model);
  return result;
}

void init(val done) {
  if (session().context) {
    done(val::null(), info());
    return;
  }
  gpu::Context::create_async({}, [done](Result<std::shared_ptr<gpu::Context>> result) mutable {
    settle(done, result, [](std::shared_ptr<gpu::Context>& context) {
      session().context = std::move(context);
      return info();
    });
  });
}

std::unique_ptr<tokenizer::Tokenizer> make_tokenizer(const model::Config& config,
                                                     const std::string& vocab_json,
                                                     const std::string& merges_txt) {
  if (vocab_json.empty()) throw Error("the model has no vocab.json");
  if (!merges_txt.empty()) {
    return tokenizer::BpeTokenizer::from_vocab_and_merges(vocab_json, merges_txt);
  }
  if (config.tokenizer == "gpt2-bpe") throw Error("a GPT-2 BPE model needs merges.txt");
  return tokenizer::CharTokenizer::from_json(vocab_json);
}

// weights: a Uint8Array of model.safetensors or model.fzm (told apart by content).
val load_model(val weights, std::string config_json, std::string vocab_json,
               std::string merges_txt) {
  try {
    check_ready(false);
    std::vector<uint8_t> bytes(weights["length"].as<size_t>());
    val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<void>("set", weights);
    const model::Config config = model::Config::from_json(config_json);
    auto tokenizer = make_tokenizer(config, vocab_json, merges_txt);
    // A model's embedding table may be padded past its tokenizer (nanoGPT pads to 50304).
    if (tokenizer->vocab_size() > config.vocab_size) {
      throw Error("the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                  " tokens but config.json says vocab_size " + std::to_string(config.vocab_size));
    }
    const io::Format format = io::detect_format(bytes);
    const io::TensorFile tensors = io::load_tensors(bytes, "the model file");
    auto model = std::make_unique<model::Model>(
        model::Model::from_tensors(config, tensors, session().context));
    Session& s = session();
    s.model = std::move(model);
    s.tokenizer = std::move(tokenizer);
    s.weight_bytes = bytes.size();
    s.format = format == io::Format::fzm ? "fzm (q4)" : "safetensors";
    return info();
  } catch (const std::exception& error) {
    return error_value(error.what());
  }
}

val tokenize(std::string text) {
  try {
    if (!session().tokenizer) throw Error("no model is loaded: call loadModel() first");
    return tokens_to_js(*session().tokenizer, session().tokenizer->encode(text));
  } catch (const std::exception& error) {
    return error_value(error.what());
  }
}

// The options object's fields, each checked for its type: a number, a whole number, or an object
// of {tokenId: bias}; a missing or null field takes the default.
class OptionReader {
 public:
  explicit OptionReader(const val& options) : options_(options) {}

  double number(const char* name, double fallback) const {
    const val value = options_[name];
    if (value.isUndefined() || value.isNull()) return fallback;
    if (value.typeOf().as<std::string>() != "number") {
      throw Error(std::string("options.") + name + " must be a number");
    }
    return value.as<double>();
  }

  // A whole number ≥ 0 that fits `limit`.
  double whole(const char* name, double fallback, double limit) const {
    const double value = number(name, fallback);
    if (!(value >= 0 && value <= limit && std::floor(value) == value)) {
      throw Error(std::string("options.") + name + " must be a whole number from 0 to " +
                  js_number(limit) + ", not " + js_number(value));
    }
    return value;
  }

  // {tokenId: bias, ...}: bias a number (-Infinity bans the token).
  std::map<uint32_t, float> biases(const char* name) const {
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

 private:
  static std::string js_number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
  }
  val options_;
};

generate::GenerateOptions generate_options(const val& options) {
  const OptionReader read(options);
  constexpr double kSizeLimit = static_cast<double>(SIZE_MAX);
  generate::GenerateOptions result;
  result.max_new_tokens = static_cast<size_t>(read.whole("maxTokens", 64, kSizeLimit));
  generate::SamplingOptions& sampling = result.sampling;
  sampling.greedy = options["greedy"].as<bool>();
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

// options: {maxTokens, temperature, topK, topP, minP, repeatPenalty, presencePenalty,
// frequencyPenalty, repeatLastN, logitBias, seed, greedy, topN}; on_text(text) per piece;
// on_trace(step) per step unless null; done(error, result) once. Stops when stop() is called.
// Options the model cannot use are an error before anything runs.
void generate(std::string prompt, val options, val on_text, val on_trace, val done) {
  try {
    check_ready(true);
    Session& s = session();
    RunGuard guard;
    const std::vector<uint32_t> ids = s.tokenizer->encode(prompt);
    model::ProbeOptions probe;
    probe.top_n =
        on_trace.isNull() ? 0 : static_cast<size_t>(OptionReader(options).whole("topN", 8, 1e6));
    const size_t n_layer = s.model->config().n_layer;
    generate::TraceCallback trace_callback =
        [on_trace, n_layer](size_t step, const model::StepTrace& trace, uint32_t token) mutable {
          if (!on_trace.isNull()) {
            on_trace(trace_to_js(*session().tokenizer, n_layer, step, trace, token));
          }
          return !session().stop_requested;
        };
    generate::TextCallback text_callback = [on_text](std::string_view text) mutable {
      on_text(std::string(text));
      return !session().stop_requested;
    };
    const generate::GenerateOptions settings = generate_options(options);
    model::validate(settings.sampling, s.model->config());
    s.stop_requested = false;
    guard.started();
    generate::generate_traced_async(*s.model, *s.tokenizer, ids, settings, probe,
                                    std::move(trace_callback), std::move(text_callback),
                                    [done](Result<generate::GenerateResult> result) mutable {
                                      session().busy = false;
                                      settle(done, result, result_to_js);
                                    });
  } catch (const std::exception& error) {
    done(std::string(error.what()));
  }
}

void stop() { session().stop_requested = true; }

// done(error, {tokens: [{id, text, bits, alternatives}], meanBits, perplexity}).
void score(std::string text, double k, val done) {
  try {
    check_ready(true);
    Session& s = session();
    RunGuard guard;
    std::vector<uint32_t> ids = s.tokenizer->encode(text);
    guard.started();
    model::surprisal_async(*s.model, std::move(ids), {.top_k = static_cast<size_t>(k)},
                           [done](Result<model::Surprisal> result) mutable {
                             session().busy = false;
                             settle(done, result, [](const model::Surprisal& surprisal) {
                               return surprisal_to_js(*session().tokenizer, surprisal);
                             });
                           });
  } catch (const std::exception& error) {
    done(std::string(error.what()));
  }
}

}  // namespace
}  // namespace wgpt::web

EMSCRIPTEN_BINDINGS(wgpt) {
  using namespace wgpt::web;
  emscripten::function("init", &init);
  emscripten::function("info", &info);
  emscripten::function("loadModel", &load_model);
  emscripten::function("tokenize", &tokenize);
  emscripten::function("generate", &generate);
  emscripten::function("stop", &stop);
  emscripten::function("score", &score);
}
