#include "generate/generation.h"

namespace wgpt::generate {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

Generation::Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                       std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                       TextCallback on_text)
    : config_(model.config()),
      tokenizer_(tokenizer),
      options_(options),
      on_text_(std::move(on_text)),
      stop_strings_(options.stop_strings),
      cache_(model.new_cache()) {
  model::validate(options.sampling, config_);
  if (prompt_ids.empty()) throw Error("the prompt is empty: give at least one token");
  if (prompt_ids.size() > config_.n_ctx) {
    throw Error("the prompt has " + std::to_string(prompt_ids.size()) +
                " tokens, more than the model's context of " + std::to_string(config_.n_ctx));
  }
  for (const std::string& stop : options.stop_strings) {
    if (stop.empty()) throw Error("a stop string is empty: give at least one character");
  }
  result_.prompt_ids.assign(prompt_ids.begin(), prompt_ids.end());
  context_ = result_.prompt_ids;
  result_.timings.prompt_tokens = prompt_ids.size();
  running_ = options.max_new_tokens > 0;
  start_ = std::chrono::steady_clock::now();
}

std::span<const uint32_t> Generation::next_ids() const {
  if (prefill_) return context_;
  return std::span(&context_.back(), 1);
}

uint32_t Generation::sample(std::span<const float> logits) {
  prefill_ = false;
  if (steps_++ == 0) {
    result_.timings.prompt_ms = elapsed_ms(start_);
    start_ = std::chrono::steady_clock::now();
  }
  return model::choose_token(logits, context(), options_.sampling).token;
}

bool Generation::emit(std::string_view text) {
  if (stop_strings_.matched()) return false;
  const bool go_on = deliver(stop_strings_.push(text));
  return go_on && !stop_strings_.matched();
}

bool Generation::deliver(const std::string& text) {
  result_.text += text;
  return text.empty() || !on_text_ || on_text_(text);
}

void Generation::accept(uint32_t token) {
  const bool stop_on_eos = options_.stop_at_end_of_text && config_.eos_token_id.has_value();
  if (stop_on_eos && token == *config_.eos_token_id) return stop(StopReason::end_of_text);
  result_.ids.push_back(token);
  context_.push_back(token);
  if (!emit(stream_.push(tokenizer_.token_bytes(token)))) {
    return stop(stop_strings_.matched() ? StopReason::stop_string : StopReason::callback);
  }
  if (result_.ids.size() == options_.max_new_tokens) return stop(StopReason::max_tokens);
  // The step that runs this token would need a position past the context.
  if (context_.size() > config_.n_ctx) {
    if (!options_.context_shift) return stop(StopReason::context_full);
    shift_context();
  }
}

void Generation::shift_context() {
  // The newest half stays, the newest token included; the cache is rebuilt from it, since every
  // kept token's position (and so its keys) changes.
  const size_t keep = std::max<size_t>(config_.n_ctx / 2, 1);
  context_.erase(context_.begin(), context_.end() - static_cast<std::ptrdiff_t>(keep));
  cache_.clear();
  prefill_ = true;
  ++result_.context_shifts;
}

void Generation::stop(StopReason reason) {
  result_.stop = reason;
  running_ = false;
}

GenerateResult Generation::finish() {
  emit(stream_.finish());
  // A tail held back as a possible stop string was not one.
  if (!stop_strings_.matched()) deliver(stop_strings_.flush());
  if (steps_ > 0) result_.timings.generate_ms = elapsed_ms(start_);
  result_.timings.generated_tokens = result_.ids.size();
  running_ = false;
  return std::move(result_);
}

}  // namespace wgpt::generate
