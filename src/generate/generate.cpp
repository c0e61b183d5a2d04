#include <chrono>

#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::max_tokens:
      return "token limit";
    case StopReason::end_of_text:
      return "end of text";
    case StopReason::context_full:
      return "context full";
    case StopReason::callback:
      return "stopped by caller";
  }
  return "?";
}

GenerateResult generate(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                        std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                        const TextCallback& on_text) {
  const model::Config& config = model.config();
  if (prompt_ids.empty()) throw Error("the prompt is empty: give at least one token");
  if (prompt_ids.size() > config.n_ctx) {
    throw Error("the prompt has " + std::to_string(prompt_ids.size()) +
                " tokens, more than the model's context of " + std::to_string(config.n_ctx));
  }
  GenerateResult result;
  result.prompt_ids.assign(prompt_ids.begin(), prompt_ids.end());
  Sampler sampler(options.sampling);
  Utf8Stream stream;
  model::KvCache cache = model.new_cache();
  const bool stop_on_eos = options.stop_at_end_of_text && config.eos_token_id.has_value();
  const uint32_t eos = config.eos_token_id.value_or(0);

  auto start = std::chrono::steady_clock::now();
  std::vector<float> logits = model.forward(prompt_ids, cache, {.all_logits = false}).logits.to_floats();
  result.timings.prompt_ms = elapsed_ms(start);
  result.timings.prompt_tokens = prompt_ids.size();

  start = std::chrono::steady_clock::now();
  auto emit = [&](const std::string& text) {
    result.text += text;
    return text.empty() || !on_text || on_text(text);
  };
  result.stop = StopReason::max_tokens;
  for (size_t step = 0; step < options.max_new_tokens; ++step) {
    const uint32_t next = sampler.next(logits);
    if (stop_on_eos && next == eos) {
      result.stop = StopReason::end_of_text;
      break;
    }
    result.ids.push_back(next);
    if (!emit(stream.push(tokenizer.token_bytes(next)))) {
      result.stop = StopReason::callback;
      break;
    }
    if (step + 1 == options.max_new_tokens) break;
    if (cache.length() == config.n_ctx) {
      result.stop = StopReason::context_full;
      break;
    }
    logits = model.forward(std::span(&next, 1), cache, {.all_logits = false}).logits.to_floats();
  }
  emit(stream.finish());
  result.timings.generate_ms = elapsed_ms(start);
  result.timings.generated_tokens = result.ids.size();
  return result;
}

}  // namespace wgpt::generate
