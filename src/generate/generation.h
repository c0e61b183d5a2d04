#pragma once
// One generation's state, shared by the plain and the traced loops: what to run next, sampling,
// streaming text, the stop conditions and the timings. A loop runs `next_ids()` through the model,
// then `accept(sample(logits))`, while `running()`.

#include <chrono>

#include "wgpt/generate.h"

namespace wgpt::generate {

class Generation {
 public:
  // Throws on an empty prompt or one that does not fit the model's context.
  Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
             std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
             TextCallback on_text);

  bool running() const { return running_; }
  // What the next step runs: the prompt (or after a context shift the newest half of the context),
  // then the last token accepted.
  std::span<const uint32_t> next_ids() const;
  // Whether the next step is a prefill (next_ids() holds more than the last token), which the
  // fused decoder cannot run.
  bool needs_prefill() const { return prefill_; }
  // The tokens the model sees: the prompt and every token accepted, or after a context shift the
  // newest half and the tokens accepted since. The sampler's context (its penalties' window).
  std::span<const uint32_t> context() const { return context_; }
  // Tokens the run may still generate.
  size_t remaining() const { return options_.max_new_tokens - result_.ids.size(); }
  model::KvCache& cache() { return cache_; }
  // Steps run so far (0 before the prefill).
  size_t steps() const { return steps_; }

  // Chooses the next token from a step's logits with the CPU reference (the first call closes
  // the prompt's timing).
  uint32_t sample(std::span<const float> logits);
  // Counts a decode step whose token the GPU chose in place of sample(); the prefill's token
  // always comes from sample().
  uint32_t chosen_on_device(uint32_t token) {
    ++steps_;
    return token;
  }
  // Appends the token and streams its text; stops at the end-of-text token, a stop string, the
  // token limit, a full context (or shifts it: GenerateOptions::context_shift), or when the text
  // callback says so.
  void accept(uint32_t token);
  void stop(StopReason reason);
  // Flushes the text stream and closes the timings.
  GenerateResult finish();

 private:
  // Passes text through the stop strings to the result and the callback; false to stop.
  bool emit(std::string_view text);
  bool deliver(const std::string& text);
  // Drops the oldest half of the context; the next step re-prefills the rest.
  void shift_context();

  const model::Config& config_;
  const tokenizer::Tokenizer& tokenizer_;
  GenerateOptions options_;
  TextCallback on_text_;
  Utf8Stream stream_;
  StopSequences stop_strings_;
  std::vector<uint32_t> context_;
  bool prefill_ = true;
  model::KvCache cache_;
  GenerateResult result_;
  bool running_ = true;
  size_t steps_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace wgpt::generate
