#pragma once
// Sampling and the generation loop: prompt in, text streamed out as it is generated.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/model.h"
#include "wgpt/probe.h"
#include "wgpt/sampling.h"
#include "wgpt/tokenizer.h"

namespace wgpt::generate {

// The sampling options and their definition live with the model (include/wgpt/sampling.h), whose
// decode path runs them on the GPU.
using SamplingOptions = model::SamplingOptions;

// Turns token bytes into valid UTF-8 text as they arrive: an incomplete multi-byte sequence at the
// end is held back until the bytes that complete it arrive; bytes that can never form valid UTF-8
// become U+FFFD. Never emits invalid UTF-8.
class Utf8Stream {
 public:
  std::string push(std::string_view bytes);
  // Whatever is still held back, as U+FFFD (the stream ended inside a character).
  std::string finish();

 private:
  std::string pending_;
};

// Stop strings (`wgpt generate --stop`, OpenAI's `stop`): generation ends where the text first
// contains one of them, and the text returned ends just before it. Streaming text is released as
// it is generated, except a tail that could still become a stop string, which is held back until
// the next text decides.
class StopSequences {
 public:
  // Each sequence non-empty UTF-8 (the caller's validation sees to that).
  explicit StopSequences(std::vector<std::string> sequences);

  // Adds generated text; returns the text now known to come before any stop sequence.
  std::string push(std::string_view text);
  // Whether a stop sequence has appeared (push then returned the text before it, and the rest
  // is dropped).
  bool matched() const { return matched_; }
  // The held-back tail, released when the generation ends without a stop sequence.
  std::string flush();

 private:
  // The length of the longest tail of held_ that is a proper prefix of some stop sequence.
  size_t possible_start() const;

  std::vector<std::string> sequences_;
  std::string held_;
  bool matched_ = false;
};

enum class StopReason { max_tokens, end_of_text, context_full, stop_string, callback };
const char* to_string(StopReason reason);

struct GenerateOptions {
  size_t max_new_tokens = 64;
  SamplingOptions sampling;
  bool stop_at_end_of_text = true;  // stop when the model emits its EOS id (if it has one)
  // Stop where the text first contains one of these (non-empty); the text ends before it.
  std::vector<std::string> stop_strings;
  // When the context is full: drop its oldest half and re-prefill the newest half, then go on (as
  // llama.cpp's context shift does); otherwise stop there (StopReason::context_full).
  bool context_shift = false;
};

struct Timings {
  double prompt_ms = 0;  // the prefill, its logits read back included
  size_t prompt_tokens = 0;
  double generate_ms = 0;  // every decode step after the first sampled token
  size_t generated_tokens = 0;
};

struct GenerateResult {
  std::vector<uint32_t> prompt_ids;
  std::vector<uint32_t> ids;  // generated only
  std::string text;           // generated only
  StopReason stop = StopReason::max_tokens;
  size_t context_shifts = 0;  // how often the context was full and its oldest half dropped
  Timings timings;
};

// Called with each new piece of text; return false to stop.
using TextCallback = std::function<bool(std::string_view text)>;

// Prefills the prompt's ids, then samples and decodes one token at a time with the KV cache. The
// prefill's token is chosen by the CPU reference (model::choose_token) from its logits; on the GPU
// decode path (model::Decoder) every later token is chosen on the GPU, two steps in flight.
// Throws on an empty prompt, one that does not fit the model's context, or sampling options the
// model cannot use (model::validate).
GenerateResult generate(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                        std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                        const TextCallback& on_text = {});

// ---- the loop's bookkeeping ---------------------------------------------------------------------

// One generation's state, shared by every generation loop (plain, traced, a Session's turns, the
// council's): what to run next, sampling, streaming text, the stop conditions and the timings. A
// loop runs `next_ids()` through its model(s), then `accept(sample(logits))`, while `running()`.
// The context outlives a turn, so a Session's next turn continues it.
class Generation {
 public:
  // A generation with no text yet, over one model whose KV cache it owns (cache()): begin_turn()
  // gives it some. Throws on sampling options the model cannot use or an empty stop string.
  Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
             const GenerateOptions& options);
  // generate()'s run: the first turn is the prompt.
  Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
             std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
             TextCallback on_text);
  // For a loop that keeps its own caches (several models): `config` gives the context and the
  // end-of-text token; cache() is then empty.
  Generation(const model::Config& config, const tokenizer::Tokenizer& tokenizer,
             std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
             TextCallback on_text);

  // Throws unless `ids` can be the next turn: empty, more than the model's context, or — without
  // GenerateOptions::context_shift — more than the context has room for.
  void check_turn(std::span<const uint32_t> ids) const;
  // Starts a turn (check_turn first): appends `ids` to the context; the next step runs every
  // token of the context that no step has run yet (the last one generated and `ids`). When the
  // context no longer fits, the context shift comes first. Results, text stream, stop strings and
  // timings start afresh.
  void begin_turn(std::span<const uint32_t> ids, TextCallback on_text);

  bool running() const { return running_; }
  // What the next step runs: the tokens of the context no step has run yet (a turn's text, or
  // after a context shift the kept part of the context), then the last token accepted.
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
  // After a step broke off, the model's cache and the context may disagree: clears the cache, and
  // the next step reads the whole context again.
  void forget_cache();
  // Steps the turn has run so far (0 before its prefill).
  size_t steps() const { return steps_; }

  // Chooses the next token from a step's logits with the CPU reference, model::choose_token (the
  // first call closes the prompt's timing).
  uint32_t sample(std::span<const float> logits);
  // Counts a step whose token was chosen elsewhere (on the GPU by model::Decoder, or by a council
  // step from its merged logits) in place of sample(); the first such call closes the prompt's
  // timing too.
  uint32_t chosen_elsewhere(uint32_t token);
  // Appends the token and streams its text; stops at the end-of-text token, a stop string, the
  // token limit, a full context (or shifts it: GenerateOptions::context_shift; a loop that keeps
  // its own caches then starts them afresh at the next prefill), or when the text callback says
  // so.
  void accept(uint32_t token);
  void stop(StopReason reason);
  // Flushes the turn's text stream and closes its timings.
  GenerateResult finish();

 private:
  Generation(const model::Config& config, const tokenizer::Tokenizer& tokenizer,
             const GenerateOptions& options);
  // Passes text through the stop strings to the result and the callback; false to stop.
  bool emit(std::string_view text);
  bool deliver(const std::string& text);
  void count_step();
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
  // How many of the context's tokens the model(s) hold: every step runs the rest.
  size_t held_ = 0;
  bool prefill_ = true;
  model::KvCache cache_;
  GenerateResult result_;
  bool running_ = false;
  size_t steps_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// A generation loop whose steps complete asynchronously (generate_traced_async, the council's):
// while `run` is running, `start_step(step_done)` starts the step for run.next_ids(); the step
// hands its token to `run`, then calls step_done(std::nullopt), or step_done(error) when it failed.
// `done` receives run.finish() or the first error (an exception start_step throws included). A
// step that completes before start_step returns (the CPU) continues the loop rather than recursing,
// so a long run needs no deep stack. Whatever start_step captures keeps `run` alive.
using StepDone = std::function<void(std::optional<Error>)>;
void run_steps_async(Generation& run, std::function<void(StepDone)> start_step,
                     std::function<void(Result<GenerateResult>)> done);

// ---- a text continued turn by turn --------------------------------------------------------------

// `wgpt generate -i`: a text that grows turn by turn — each turn some new text, then what the
// model generates after it — with one KV cache throughout, so a turn runs only its new tokens
// through the model. A turn generates exactly what generate() gives for the whole context (every
// earlier turn's ids and generated tokens, then the turn's ids) with the same options: the CPU
// backend's logits are bit-for-bit those of one prefill. The ids of each turn are the caller's:
// text encoded turn by turn is the concatenation of each turn's encoding, which with a BPE
// vocabulary can differ from encoding the whole text at once where a merge would span a turn's
// boundary (tokenizer::Tokenizer::encode).
class Session {
 public:
  // Throws on options the model cannot use (as generate()).
  Session(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
          const GenerateOptions& options);
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Throws unless `ids` can be the next turn: empty, longer than the model's context, or —
  // without GenerateOptions::context_shift — more than the context has room for. continue_with()
  // checks the same before it changes anything.
  void check(std::span<const uint32_t> ids) const;
  // Appends `ids` to the context and generates after them as generate() does, streaming the new
  // text to `on_text`. Runs through the model only the tokens the cache lacks: `ids`, and the
  // previous turn's last generated token, which no step has run yet. When the context cannot
  // take `ids`, the context shift comes first: the oldest tokens are dropped, the newest half of
  // the context (all of `ids` when they are more) is kept and read again, and the result counts
  // it in context_shifts. Should a turn fail half-way, the next one reads the whole context again.
  GenerateResult continue_with(std::span<const uint32_t> ids, const TextCallback& on_text = {});
  // The tokens the model sees: every turn's ids and generated tokens since the last context
  // shift (an end-of-text token that stopped a turn is not among them).
  std::span<const uint32_t> context() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- generation with the probe ------------------------------------------------------------------

// Called once per step, prefill included (step 0), with what the step captured and the token
// sampled from its logits — before that token's text is streamed; an end-of-text token, which
// ends the run, is reported too. Return false to stop (the token is then not accepted).
using TraceCallback =
    std::function<bool(size_t step, const model::StepTrace& trace, uint32_t token)>;

// generate() with the probe on: the same tokens and text as generate() with the same options,
// plus a trace of every step, each read back in one batch (one fence wait on the GPU).
GenerateResult generate_traced(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                               std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                               const model::ProbeOptions& probe, const TraceCallback& on_trace,
                               const TextCallback& on_text = {});
// The same without blocking: each step's readback completes from gpu::Context::poll() (native) or
// the browser's event loop, and `done` runs once, with the result or the first error (including
// an exception a callback threw). `model` and `tokenizer` must outlive the run. On the CPU it has
// finished when this returns.
void generate_traced_async(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                           std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                           const model::ProbeOptions& probe, TraceCallback on_trace,
                           TextCallback on_text, std::function<void(Result<GenerateResult>)> done);

}  // namespace wgpt::generate
