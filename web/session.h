#pragma once
// What the browser API's entry points share (web/wasm_api.cpp for the model, web/council_api.cpp
// for the council): the one WebGPU device (or the CPU backend instead), what is loaded on it, the
// one-run-at-a-time rule, and how results and errors reach JavaScript.

#include <emscripten/val.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "wgpt/council.h"
#include "wgpt/generate.h"
#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::web {

using emscripten::val;

struct Session {
  std::shared_ptr<gpu::Context> context;
  bool cpu = false;  // the CPU backend, without a device (initCpu)
  std::unique_ptr<model::Model> model;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  size_t weight_bytes = 0;
  std::string format;
  std::unique_ptr<council::Council> council;
  std::unique_ptr<tokenizer::Tokenizer> council_tokenizer;
  // One run at a time: what runs must outlive it, and the device has one queue.
  bool busy = false;
  bool stop_requested = false;
};

Session& session();

// done(error, value): every asynchronous call reports this way.
template <class T, class ToJs>
void settle(val& done, Result<T>& result, ToJs to_js) {
  if (result.ok()) {
    done(val::null(), to_js(result.value()));
  } else {
    done(std::string(result.error().what()));
  }
}

// Throws unless the device (or the CPU backend) is ready, nothing runs, and (for a run) what it
// needs is loaded.
void check_ready(bool needs_model);

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

// The options object's fields, each checked for its type: a number, a whole number, or an object
// of {tokenId: bias}; a missing or null field takes the default. Throws naming the field.
class OptionReader {
 public:
  explicit OptionReader(const val& options) : options_(options) {}
  double number(const char* name, double fallback) const;
  // A whole number ≥ 0 that fits `limit`.
  double whole(const char* name, double fallback, double limit) const;
  // {tokenId: bias, ...}: bias a number (-Infinity bans the token).
  std::map<uint32_t, float> biases(const char* name) const;

 private:
  val options_;
};

// {maxTokens, temperature, topK, topP, minP, repeatPenalty, presencePenalty, frequencyPenalty,
// repeatLastN, logitBias, seed, greedy} as the library's options, each checked for its type (the
// values are checked against the model by model::validate when a run starts).
generate::GenerateOptions generate_options(const val& options);
// A tokenizer from the text of vocab.json (and merges.txt for BPE), checked against the config.
std::unique_ptr<tokenizer::Tokenizer> make_tokenizer(const model::Config& config,
                                                     const std::string& vocab_json,
                                                     const std::string& merges_txt);
// The bytes of a Uint8Array, copied into the wasm heap.
std::vector<uint8_t> bytes_of(const val& array);

}  // namespace wgpt::web
