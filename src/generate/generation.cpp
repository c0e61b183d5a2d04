// One generation's bookkeeping (wgpt::generate::Generation): shared by every generation loop.
#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

Generation::Generation(const model::Config& config, const tokenizer::Tokenizer& tokenizer,
                       const GenerateOptions& options)
    : config_(config),
      tokenizer_(tokenizer),
      options_(options),
      stop_strings_(options.stop_strings) {
  model::validate(options.sampling, config_);
  for (const std::string& stop : options.stop_strings) {
    if (stop.empty()) throw Error("a stop string is empty: give at least one character");
  }
}

Generation::Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                       const GenerateOptions& options)
    : Generation(model.config(), tokenizer, options) {
  cache_ = model.new_cache();
}

Generation::Generation(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                       std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                       TextCallback on_text)
    : Generation(model, tokenizer, options) {
  begin_turn(prompt_ids, std::move(on_text));
}

Generation::Generation(const model::Config& config, const tokenizer::Tokenizer& tokenizer,
                       std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                       TextCallback on_text)
    : Generation(config, tokenizer, options) {
  begin_turn(prompt_ids, std::move(on_text));
}

void Generation::check_turn(std::span<const uint32_t> ids) const {
  if (ids.empty()) throw Error("the prompt is empty: give at least one token");
  if (ids.size() > config_.n_ctx) {
    throw Error("the prompt has " + std::to_string(ids.size()) +
                " tokens, more than the model's context of " + std::to_string(config_.n_ctx));
  }
  if (!options_.context_shift && context_.size() + ids.size() > config_.n_ctx) {
    throw Error("the context holds " + std::to_string(context_.size()) + " of the model's " +
                std::to_string(config_.n_ctx) + " tokens and the new text " +
                std::to_string(ids.size()) +
                " more: it does not fit, and context shift (which would drop the oldest) is off");
  }
}

void Generation::begin_turn(std::span<const uint32_t> ids, TextCallback on_text) {
  check_turn(ids);
  on_text_ = std::move(on_text);
  stream_ = Utf8Stream();
  stop_strings_ = StopSequences(options_.stop_strings);
  result_ = GenerateResult();
  result_.prompt_ids.assign(ids.begin(), ids.end());
  context_.insert(context_.end(), ids.begin(), ids.end());
  // The turn's text stays whole: a shift here keeps at least all of it.
  if (context_.size() > config_.n_ctx) shift_context(ids.size());
  prefill_ = true;
  steps_ = 0;
  result_.timings.prompt_tokens = next_ids().size();
  running_ = options_.max_new_tokens > 0;
  start_ = std::chrono::steady_clock::now();
}

std::span<const uint32_t> Generation::next_ids() const {
  return std::span(context_).subspan(held_);
}

void Generation::forget_cache() {
  cache_.clear();
  held_ = 0;
  prefill_ = true;
}

void Generation::count_step() {
  // The step ran every token of the context: the token it chose is not among them yet.
  held_ = context_.size();
  prefill_ = false;
  if (steps_++ == 0) {
    result_.timings.prompt_ms = elapsed_ms(start_);
    start_ = std::chrono::steady_clock::now();
  }
}

uint32_t Generation::sample(std::span<const float> logits) {
  count_step();
  return model::choose_token(logits, context(), options_.sampling).token;
}

uint32_t Generation::chosen_elsewhere(uint32_t token) {
  count_step();
  return token;
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
    shift_context(1);
  }
}

void Generation::shift_context(size_t newest) {
  // The cache is rebuilt from what stays, since every kept token's position (and so its keys)
  // changes.
  const size_t keep = std::max(config_.n_ctx / 2, newest);
  context_.erase(context_.begin(), context_.end() - static_cast<std::ptrdiff_t>(keep));
  forget_cache();
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
