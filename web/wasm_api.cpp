// The C++ half of the JavaScript API (web/wgpt.js wraps it in promises): one WebGPU device, one
// loaded model, and asynchronous calls that report to JavaScript callbacks. Every entry point
// catches what the library throws and hands JavaScript the message: synchronous calls return
// {error}, asynchronous ones call done(message). Nothing here blocks: each GPU step completes from
// the browser's event loop.
#include <emscripten/bind.h>

#include <cstdint>
#include <memory>
#include <string>

#include "js_values.h"
#include "session.h"
#include "wgpt/generate.h"
#include "wgpt/io.h"
#include "wgpt/model.h"
#include "wgpt/probe.h"
#include "wgpt/tokenizer.h"

namespace wgpt::web {
namespace {

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
  if (session().cpu) {
    done(std::string("this module runs on the CPU backend (initCpu): it takes no WebGPU device"));
    return;
  }
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

// The CPU backend instead of a WebGPU device, for work off the page's thread (a worker has no
// need of the device for scoring, and a software adapter is slower than the CPU reference).
val init_cpu() {
  Session& s = session();
  if (s.context) return error_value("this module already has a WebGPU device");
  s.cpu = true;
  return info();
}

// weights: a Uint8Array of model.safetensors or model.fzm (told apart by content).
val load_model(val weights, std::string config_json, std::string vocab_json,
               std::string merges_txt) {
  try {
    check_ready(false);
    const std::vector<uint8_t> bytes = bytes_of(weights);
    const model::Config config = model::Config::from_json(config_json);
    auto tokenizer = make_tokenizer(config, vocab_json, merges_txt);
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

// done(error, {tokens: [{id, text, bits, alternatives}], meanBits, perplexity}); on_window(done,
// total) after each window unless null.
void score(std::string text, double k, val on_window, val done) {
  try {
    check_ready(true);
    Session& s = session();
    RunGuard guard;
    std::vector<uint32_t> ids = s.tokenizer->encode(text);
    guard.started();
    model::SurprisalOptions options{.top_k = static_cast<size_t>(k)};
    if (!on_window.isNull()) {
      options.on_window = [on_window](size_t done, size_t total) mutable {
        on_window(done, total);
      };
    }
    model::surprisal_async(*s.model, std::move(ids), std::move(options),
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
  emscripten::function("initCpu", &init_cpu);
  emscripten::function("info", &info);
  emscripten::function("loadModel", &load_model);
  emscripten::function("tokenize", &tokenize);
  emscripten::function("generate", &generate);
  emscripten::function("stop", &stop);
  emscripten::function("score", &score);
}
