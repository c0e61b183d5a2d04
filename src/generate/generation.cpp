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
      cache_(model.new_cache()) {
  model::validate(options.sampling, config_);
  if (prompt_ids.empty()) throw Error("the prompt is empty: give at least one token");
  if (prompt_ids.size() > config_.n_ctx) {
    throw Error("the prompt has " + std::to_string(prompt_ids.size()) +
                " tokens, more than the model's context of " + std::to_string(config_.n_ctx));
  }
  result_.prompt_ids.assign(prompt_ids.begin(), prompt_ids.end());
  result_.timings.prompt_tokens = prompt_ids.size();
  running_ = options.max_new_tokens > 0;
  start_ = std::chrono::steady_clock::now();
}

std::span<const uint32_t> Generation::next_ids() const {
  if (result_.ids.empty()) return result_.prompt_ids;
  return std::span(&result_.ids.back(), 1);
}

std::vector<uint32_t> Generation::context() const {
  std::vector<uint32_t> tokens = result_.prompt_ids;
  tokens.insert(tokens.end(), result_.ids.begin(), result_.ids.end());
  return tokens;
}

uint32_t Generation::sample(std::span<const float> logits) {
  if (steps_++ == 0) {
    result_.timings.prompt_ms = elapsed_ms(start_);
    start_ = std::chrono::steady_clock::now();
  }
  return model::choose_token(logits, context(), options_.sampling).token;
}

bool Generation::emit(const std::string& text) {
  result_.text += text;
  return text.empty() || !on_text_ || on_text_(text);
}

void Generation::accept(uint32_t token) {
  const bool stop_on_eos = options_.stop_at_end_of_text && config_.eos_token_id.has_value();
  if (stop_on_eos && token == *config_.eos_token_id) return stop(StopReason::end_of_text);
  result_.ids.push_back(token);
  if (!emit(stream_.push(tokenizer_.token_bytes(token)))) return stop(StopReason::callback);
  if (result_.ids.size() == options_.max_new_tokens) return stop(StopReason::max_tokens);
  if (cache_.length() == config_.n_ctx) return stop(StopReason::context_full);
}

void Generation::stop(StopReason reason) {
  result_.stop = reason;
  running_ = false;
}

GenerateResult Generation::finish() {
  emit(stream_.finish());
  if (steps_ > 0) result_.timings.generate_ms = elapsed_ms(start_);
  result_.timings.generated_tokens = result_.ids.size();
  running_ = false;
  return std::move(result_);
}

}  // namespace wgpt::generate
