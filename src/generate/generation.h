#pragma once
// One generation's state, shared by the plain and the traced loops and by a Session's turns: what
// to run next, sampling, streaming text, the stop conditions and the timings. A loop runs
// `next_ids()` through the model, then `accept(sample(logits))`, while `running()`. The KV cache
// and the context outlive a turn, so a Session's next turn continues them.

#include <chrono>

#include "wgpt/decoder.h"
#include "wgpt/generate.h"

namespace wgpt::generate {

class Generation {
 public:
  // A generation with no text yet: begin_turn() gives it some. Throws on sampling options the
  // model cannot use or an empty stop string.
  Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
             const GenerateOptions& options);
  // generate()'s run: the first turn is the prompt.
  Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
             std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
             TextCallback on_text);

  // Throws unless `ids` can be the next turn: empty, more than the model's context, or — without
  // GenerateOptions::context_shift — more than the context has room for.
  void check_turn(std::span<const uint32_t> ids) const;
  // Starts a turn (check_turn first): appends `ids` to the context; the next step runs every
  // token of the context that the cache does not hold yet (the last one generated, which no step
  // has run, and `ids`) at the cache's position. When the context no longer fits, the context
  // shift comes first. Results, text stream, stop strings and timings start afresh.
  void begin_turn(std::span<const uint32_t> ids, TextCallback on_text);

  bool running() const { return running_; }
  // What the next step runs: the tokens of the context the cache does not hold yet (a turn's
  // text, or after a context shift the kept part of the context), then the last token accepted.
  std::span<const uint32_t> next_ids() const;
  // Whether the next step is a prefill (next_ids() holds more than the last token), which the
  // fused decoder cannot run.
  bool needs_prefill() const { return prefill_; }
  // The tokens the model sees: every turn's text and every token accepted, or after a context
  // shift the kept part and what came since. The sampler's context (its penalties' window).
  std::span<const uint32_t> context() const { return context_; }
  // Tokens the turn may still generate.
  size_t remaining() const { return options_.max_new_tokens - result_.ids.size(); }
  model::KvCache& cache() { return cache_; }
  // Steps the turn has run so far (0 before its prefill).
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
  // Flushes the turn's text stream and closes its timings.
  GenerateResult finish();

 private:
  // Passes text through the stop strings to the result and the callback; false to stop.
  bool emit(std::string_view text);
  bool deliver(const std::string& text);
  // Drops the oldest tokens of the context, keeping its newest half (or its `newest` tokens when
  // that is more); the next step re-prefills what is kept.
  void shift_context(size_t newest);

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
  bool running_ = false;
  size_t steps_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// generate()'s loop: runs `run` until it stops. Prefills (a turn's text, and after a context shift
// the kept part) take the general forward pass; the steps after them take `fused` where given.
void run_to_end(const model::Model& model, Generation& run, model::Decoder* fused);

}  // namespace wgpt::generate
