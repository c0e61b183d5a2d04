#include <optional>

#include "generate/run_to_end.h"

namespace wgpt::generate {

struct Session::State {
  State(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
        const GenerateOptions& options)
      : model(model), run(model, tokenizer, options) {
    // Built once for every turn, bound to the one cache (as generate() builds it before its
    // prefill, so that compiling its kernels is not counted with the first turn's tokens).
    if (options.max_new_tokens > 1 && model::Decoder::supported(model)) {
      fused.emplace(model, run.cache(), options.sampling);
    }
  }

  const model::Model& model;
  Generation run;
  std::optional<model::Decoder> fused;  // for the decode steps, where supported
};

Session::Session(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                 const GenerateOptions& options)
    : state_(std::make_unique<State>(model, tokenizer, options)) {}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

void Session::check(std::span<const uint32_t> ids) const { state_->run.check_turn(ids); }

GenerateResult Session::continue_with(std::span<const uint32_t> ids, const TextCallback& on_text) {
  Generation& run = state_->run;
  run.begin_turn(ids, on_text);
  try {
    run_to_end(state_->model, run, state_->fused ? &*state_->fused : nullptr);
  } catch (...) {
    // Where the turn broke off, the cache and the context may disagree: the next turn rebuilds
    // the cache from the whole context.
    run.forget_cache();
    throw;
  }
  return run.finish();
}

std::span<const uint32_t> Session::context() const { return state_->run.context(); }

}  // namespace wgpt::generate
