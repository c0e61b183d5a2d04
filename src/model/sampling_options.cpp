// The sampling options' checks (include/wgpt/sampling.h).
#include <cmath>
#include <sstream>

#include "wgpt/sampling.h"

namespace wgpt::model {
namespace {

std::string text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

[[noreturn]] void reject(const std::string& option, double value, const std::string& rule) {
  throw Error("sampling: " + option + " " + text(value) + " " + rule);
}

}  // namespace

bool SamplingOptions::penalizes() const {
  return penalty_last_n > 0 &&
         (repeat_penalty != 1.0f || presence_penalty != 0.0f || frequency_penalty != 0.0f);
}

bool SamplingOptions::adjusts_logits() const { return penalizes() || !logit_bias.empty(); }

void validate(const SamplingOptions& options, const Config& config) {
  if (!(options.temperature >= 0.0f) || std::isinf(options.temperature)) {
    reject("temperature", options.temperature, "is not a finite number >= 0 (0 is greedy)");
  }
  if (!(options.top_p > 0.0f && options.top_p <= 1.0f)) {
    reject("top-p", options.top_p, "is not in (0, 1] (1 keeps every token)");
  }
  if (!(options.min_p >= 0.0f && options.min_p <= 1.0f)) {
    reject("min-p", options.min_p, "is not in [0, 1] (0 keeps every token)");
  }
  if (!(options.repeat_penalty > 0.0f) || std::isinf(options.repeat_penalty)) {
    reject("repeat penalty", options.repeat_penalty, "is not a finite number > 0 (1 is off)");
  }
  if (!std::isfinite(options.presence_penalty)) {
    reject("presence penalty", options.presence_penalty, "is not a finite number");
  }
  if (!std::isfinite(options.frequency_penalty)) {
    reject("frequency penalty", options.frequency_penalty, "is not a finite number");
  }
  if (options.penalizes() && options.penalty_last_n > config.n_ctx) {
    throw Error("sampling: the penalty window of " + std::to_string(options.penalty_last_n) +
                " tokens is larger than the model's context of " + std::to_string(config.n_ctx));
  }
  size_t banned = 0;
  for (const auto& [id, bias] : options.logit_bias) {
    if (id >= config.vocab_size) {
      throw Error("sampling: logit bias for token id " + std::to_string(id) +
                  ", which is outside the vocabulary of " + std::to_string(config.vocab_size));
    }
    if (std::isnan(bias) || bias == INFINITY) {
      throw Error("sampling: logit bias " + text(bias) + " for token id " + std::to_string(id) +
                  " is not a finite number or -inf");
    }
    banned += bias == -INFINITY;
  }
  if (banned == config.vocab_size) {
    throw Error("sampling: the logit biases ban every token of the vocabulary");
  }
}

}  // namespace wgpt::model
