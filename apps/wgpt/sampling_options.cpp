#include "sampling_options.h"

#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "option_checks.h"

namespace wgpt::cli {
namespace {

// A spec's value: the whole of `text` as a number (std::invalid_argument otherwise).
float spec_number(const std::string& text) {
  size_t consumed = 0;
  const float value = std::stof(text, &consumed);
  if (consumed != text.size()) throw std::invalid_argument(text);
  return value;
}

uint64_t spec_whole_number(const std::string& text) {
  size_t consumed = 0;
  if (text.empty() || text[0] == '-' || text[0] == '+') throw std::invalid_argument(text);
  const uint64_t value = std::stoull(text, &consumed);
  if (consumed != text.size()) throw std::invalid_argument(text);
  return value;
}

// "ID=BIAS", or llama.cpp's "ID+BIAS" / "ID-BIAS"; BIAS a number, or -inf to ban the token.
void add_logit_bias(const std::string& text, std::map<uint32_t, float>& biases) {
  const size_t split = text.find_first_of("=+-");
  size_t consumed = 0;
  unsigned long id = 0;
  float bias = 0;
  try {
    if (split == 0 || split == std::string::npos) throw std::invalid_argument(text);
    id = std::stoul(text.substr(0, split), &consumed);
    if (consumed != split || id > UINT32_MAX) throw std::invalid_argument(text);
    const std::string value = text.substr(text[split] == '=' ? split + 1 : split);
    bias = value == "-inf" ? -INFINITY : spec_number(value);
  } catch (const std::logic_error&) {
    // A usage error, as every other malformed option value is (found by fuzz_cli).
    throw CLI::ValidationError("--logit-bias " + text +
                               ": expected TOKEN_ID=BIAS (or TOKEN_ID+BIAS, TOKEN_ID-BIAS; -inf "
                               "bans the token)");
  }
  biases[static_cast<uint32_t>(id)] = bias;
}

}  // namespace

void add_sampling_options(CLI::App& command, generate::SamplingOptions& sampling,
                          bool& ignore_end_of_text) {
  command.add_option("--temp", sampling.temperature, "Sampling temperature (>= 0; 0 is greedy)")
      ->check(real_number(0, kLargestFloat, "[]"))
      ->capture_default_str();
  command.add_option("--top-k", sampling.top_k, "Keep the k most likely tokens (0: all)")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  command.add_option("--top-p", sampling.top_p, "Nucleus sampling mass in (0, 1]")
      ->check(real_number(0, 1, "(]"))
      ->capture_default_str();
  command
      .add_option("--min-p", sampling.min_p,
                  "Keep tokens at least this fraction as likely as the best, in [0, 1]")
      ->check(real_number(0, 1, "[]"))
      ->capture_default_str();
  command
      .add_option("--repeat-penalty", sampling.repeat_penalty,
                  "Divide a positive logit (multiply a negative one) of each token in the "
                  "window by this (> 0; 1 is off)")
      ->check(real_number(0, kLargestFloat, "(]"))
      ->capture_default_str();
  command
      .add_option("--repeat-last-n", sampling.penalty_last_n,
                  "The penalties' window: the context's last n tokens (0: no penalties; at most "
                  "the model's context)")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  command
      .add_option("--presence-penalty", sampling.presence_penalty,
                  "Subtract this from the logit of each token in the window")
      ->check(real_number(-kLargestFloat, kLargestFloat, "[]"))
      ->capture_default_str();
  command
      .add_option("--frequency-penalty", sampling.frequency_penalty,
                  "Subtract this per occurrence in the window from a token's logit")
      ->check(real_number(-kLargestFloat, kLargestFloat, "[]"))
      ->capture_default_str();
  command
      .add_option_function<std::vector<std::string>>(
          "--logit-bias",
          [&sampling](const std::vector<std::string>& values) {
            for (const std::string& value : values) add_logit_bias(value, sampling.logit_bias);
          },
          "Add BIAS to token TOKEN_ID's logit: TOKEN_ID=BIAS, repeatable (-inf bans the token)")
      ->take_all();
  command.add_option("--seed", sampling.seed, "Random seed (a draw depends on seed and position)")
      ->check(whole_number(0, kAnyUint64))
      ->capture_default_str();
  command.add_flag("--greedy", sampling.greedy, "Always take the most likely token");
  command.add_flag("--ignore-eos", ignore_end_of_text,
                   "Keep generating past the end-of-text token");
}

generate::SamplingOptions parse_sampling_spec(const std::string& spec) {
  generate::SamplingOptions options;
  const std::map<std::string, std::function<void(const std::string&)>> setters = {
      {"temp", [&](const std::string& v) { options.temperature = spec_number(v); }},
      {"top-k", [&](const std::string& v) { options.top_k = spec_whole_number(v); }},
      {"top-p", [&](const std::string& v) { options.top_p = spec_number(v); }},
      {"min-p", [&](const std::string& v) { options.min_p = spec_number(v); }},
      {"repeat-penalty", [&](const std::string& v) { options.repeat_penalty = spec_number(v); }},
      {"repeat-last-n",
       [&](const std::string& v) { options.penalty_last_n = spec_whole_number(v); }},
      {"presence-penalty",
       [&](const std::string& v) { options.presence_penalty = spec_number(v); }},
      {"frequency-penalty",
       [&](const std::string& v) { options.frequency_penalty = spec_number(v); }},
      {"seed", [&](const std::string& v) { options.seed = spec_whole_number(v); }},
  };
  std::stringstream parts(spec);
  std::string part;
  while (std::getline(parts, part, ',')) {
    if (part == "greedy") {
      options.greedy = true;
      continue;
    }
    const size_t equals = part.find('=');
    const auto setter = setters.find(part.substr(0, equals));
    if (equals == std::string::npos || setter == setters.end()) {
      throw Error("--sampling '" + spec + "': cannot read '" + part +
                  "' (expected KEY=VALUE with KEY one of temp, top-k, top-p, min-p, "
                  "repeat-penalty, repeat-last-n, presence-penalty, frequency-penalty, seed; "
                  "or greedy)");
    }
    const std::string value = part.substr(equals + 1);
    try {
      setter->second(value);
    } catch (const std::logic_error&) {
      throw Error("--sampling '" + spec + "': '" + value + "' is not a value for " + setter->first);
    }
  }
  return options;
}

}  // namespace wgpt::cli
