#include "serve/generation_request.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "serve/api_error.h"

namespace wgpt::serve {
namespace {

constexpr int64_t kMaxTokenCount = 1 << 30;  // beyond any context; the context check says more

std::string quoted(std::string_view field) { return "'" + std::string(field) + "'"; }

uint64_t random_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

std::vector<std::string> read_stop(RequestFields& fields) {
  const nlohmann::json* value = fields.get("stop");
  if (!value) return {};
  const std::string shape =
      "'stop' must be a string or an array of up to " + std::to_string(kMaxStops) + " strings";
  std::vector<std::string> stop;
  if (value->is_string()) {
    stop.push_back(value->get<std::string>());
  } else if (value->is_array() && value->size() <= kMaxStops) {
    for (const nlohmann::json& sequence : *value) {
      if (!sequence.is_string()) throw ApiError(400, shape, "stop");
      stop.push_back(sequence.get<std::string>());
    }
  } else {
    throw ApiError(400, shape, "stop");
  }
  for (const std::string& sequence : stop) {
    if (sequence.empty()) throw ApiError(400, "'stop' sequences must not be empty", "stop");
  }
  return stop;
}

ProbeRequest read_probe(RequestFields& fields) {
  const nlohmann::json* value = fields.get("wgpt");
  if (!value) return {};
  RequestFields probe(*value, "wgpt");
  ProbeRequest request;
  request.attention = probe.boolean("attention").value_or(false);
  request.top = static_cast<size_t>(probe.integer("top", 0, kMaxProbeTop).value_or(0));
  probe.reject_unread();
  return request;
}

// OpenAI's logit_bias: token id (a string key) → a bias from -100 to 100 added to its logit.
std::map<uint32_t, float> read_logit_bias(RequestFields& fields, size_t vocab_size) {
  const nlohmann::json* value = fields.get("logit_bias");
  std::map<uint32_t, float> biases;
  if (!value) return biases;
  if (!value->is_object()) {
    throw ApiError(400, "'logit_bias' must be an object of token ids to biases", "logit_bias");
  }
  RequestFields entries(*value, "logit_bias");
  for (const auto& [key, unused] : value->items()) {
    uint64_t id = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), id);
    if (error != std::errc() || end != key.data() + key.size() || id >= vocab_size) {
      throw ApiError(400,
                     "'logit_bias' keys must be token ids from 0 to " +
                         std::to_string(vocab_size - 1) + ", not \"" + key + "\"",
                     "logit_bias");
    }
    const double bias = entries.number(key, -100, 100).value_or(0);
    // As OpenAI: -100 bans the token (here exactly: its probability becomes 0).
    biases[static_cast<uint32_t>(id)] =
        bias == -100 ? -std::numeric_limits<float>::infinity() : static_cast<float>(bias);
  }
  const bool bans_all = biases.size() == vocab_size &&
                        std::all_of(biases.begin(), biases.end(),
                                    [](const auto& entry) { return std::isinf(entry.second); });
  if (bans_all) throw ApiError(400, "'logit_bias' bans every token", "logit_bias");
  return biases;
}

// The penalties: OpenAI's presence and frequency penalties and logit_bias, and llama.cpp's
// repeat_penalty and its window.
void read_penalties(RequestFields& fields, const ServedModel& model, GenerationRequest& request) {
  generate::SamplingOptions& sampling = request.sampling;
  sampling.presence_penalty =
      static_cast<float>(fields.number("presence_penalty", -2, 2).value_or(0));
  sampling.frequency_penalty =
      static_cast<float>(fields.number("frequency_penalty", -2, 2).value_or(0));
  sampling.repeat_penalty = static_cast<float>(fields.number("repeat_penalty", 0, 10).value_or(1));
  if (sampling.repeat_penalty <= 0) {
    throw ApiError(400, "'repeat_penalty' must be greater than 0 (1 is off)", "repeat_penalty");
  }
  sampling.penalty_last_n = static_cast<size_t>(
      fields.integer("repeat_last_n", 0, static_cast<int64_t>(model.n_ctx)).value_or(64));
  sampling.penalty_last_n = std::min(sampling.penalty_last_n, model.n_ctx);
  sampling.logit_bias = read_logit_bias(fields, model.vocab_size);
}

void read_stream(RequestFields& fields, GenerationRequest& request) {
  request.stream = fields.boolean("stream").value_or(false);
  const nlohmann::json* options = fields.get("stream_options");
  if (!options) return;
  if (!request.stream) {
    throw ApiError(400, "'stream_options' is only allowed when 'stream' is true", "stream_options");
  }
  RequestFields stream_options(*options, "stream_options");
  request.include_usage = stream_options.boolean("include_usage").value_or(false);
  stream_options.reject_unread();
}

}  // namespace

std::vector<SequenceRequest> GenerationRequest::sequences() const {
  std::vector<SequenceRequest> sequences;
  const StepReport report{logprobs, std::max(top_logprobs, probe.top), probe.attention};
  for (size_t choice = 0; choice < n; ++choice) {
    generate::SamplingOptions choice_sampling = sampling;
    choice_sampling.seed += choice;
    sequences.push_back(
        {choice, prompt.ids, choice_sampling, max_tokens, ignore_eos, stop, report});
  }
  return sequences;
}

void check_model_name(const nlohmann::json* value, const ServedModel& model) {
  if (!value) return;
  if (!value->is_string()) throw ApiError(400, "'model' must be a string", "model");
  const std::string name = value->get<std::string>();
  if (name != model.name) {
    throw ApiError(
        404, "The model '" + name + "' does not exist: this server serves '" + model.name + "'",
        "model", "model_not_found");
  }
}

Prompt read_prompt(const nlohmann::json* value, const ServedModel& model, const char* field) {
  if (!value) throw ApiError(400, quoted(field) + " is required", field);
  const nlohmann::json* one = value;
  if (value->is_array() && !value->empty() && !(*value)[0].is_number()) {
    if (value->size() > 1) {
      throw ApiError(400, "send one prompt per request: batches of prompts are not supported",
                     field);
    }
    one = &(*value)[0];
  }
  Prompt prompt;
  if (one->is_string()) {
    prompt.text = one->get<std::string>();
    try {
      prompt.ids = model.tokenizer.encode(prompt.text);
    } catch (const Error& error) {
      throw ApiError(400, quoted(field) + " cannot be tokenized: " + error.what(), field);
    }
  } else if (one->is_array()) {
    for (const nlohmann::json& id : *one) {
      if (!id.is_number_unsigned() || id.get<uint64_t>() >= model.vocab_size) {
        throw ApiError(400,
                       quoted(field) + " token ids must be integers from 0 to " +
                           std::to_string(model.vocab_size - 1) + ", not " + id.dump(),
                       field);
      }
      prompt.ids.push_back(id.get<uint32_t>());
    }
    prompt.text = model.tokenizer.decode(prompt.ids);
  } else {
    throw ApiError(400, quoted(field) + " must be a string or an array of token ids", field);
  }
  if (prompt.ids.empty()) {
    throw ApiError(400, quoted(field) + " is empty: give at least one token", field);
  }
  return prompt;
}

void read_generation_fields(RequestFields& fields, const ServedModel& model,
                            GenerationRequest& request) {
  check_model_name(fields.get("model"), model);
  const double temperature = fields.number("temperature", 0, 2).value_or(1.0);
  request.sampling.greedy = temperature == 0;
  if (!request.sampling.greedy) request.sampling.temperature = static_cast<float>(temperature);
  const double top_p = fields.number("top_p", 0, 1).value_or(1.0);
  if (top_p <= 0) {
    throw ApiError(400, "'top_p' must be greater than 0 (temperature 0 decodes greedily)", "top_p");
  }
  request.sampling.top_p = static_cast<float>(top_p);
  request.sampling.top_k =
      static_cast<size_t>(fields.integer("top_k", 0, kMaxTokenCount).value_or(0));
  request.sampling.min_p = static_cast<float>(fields.number("min_p", 0, 1).value_or(0));
  const std::optional<int64_t> seed = fields.integer("seed", INT64_MIN, INT64_MAX);
  request.sampling.seed = seed ? static_cast<uint64_t>(*seed) : random_seed();
  request.n = static_cast<size_t>(fields.integer("n", 1, kMaxChoices).value_or(1));
  request.ignore_eos = fields.boolean("ignore_eos").value_or(false);
  request.stop = read_stop(fields);
  read_stream(fields, request);
  request.probe = read_probe(fields);
  read_penalties(fields, model, request);
  fields.string("user");  // accepted; wgpt keeps no per-user state
}

void check_context(const GenerationRequest& request, const ServedModel& model,
                   const char* prompt_field) {
  const size_t prompt = request.prompt.ids.size();
  if (prompt + request.max_tokens <= model.n_ctx) return;
  throw ApiError(400,
                 "This model's maximum context length is " + std::to_string(model.n_ctx) +
                     " tokens, however you requested " +
                     std::to_string(prompt + request.max_tokens) + " tokens (" +
                     std::to_string(prompt) + " in your prompt; " +
                     std::to_string(request.max_tokens) +
                     " for the completion). Please reduce your prompt or completion length.",
                 prompt >= model.n_ctx ? prompt_field : "max_tokens", "context_length_exceeded");
}

GenerationRequest parse_completion_request(const nlohmann::json& body, const ServedModel& model) {
  RequestFields fields(body);
  GenerationRequest request;
  request.prompt = read_prompt(fields.get("prompt"), model, "prompt");
  request.max_tokens =
      static_cast<size_t>(fields.integer("max_tokens", 0, kMaxTokenCount).value_or(16));
  read_generation_fields(fields, model, request);
  request.echo = fields.boolean("echo").value_or(false);
  if (const auto logprobs = fields.integer("logprobs", 0, kMaxTopLogprobs)) {
    request.logprobs = true;
    request.top_logprobs = static_cast<size_t>(*logprobs);
  }
  const std::optional<int64_t> best_of = fields.integer("best_of", 1, kMaxChoices);
  if (best_of && static_cast<size_t>(*best_of) != request.n) {
    throw ApiError(400, "'best_of' is not supported: leave it out or make it equal to 'n'",
                   "best_of");
  }
  if (fields.get("suffix")) {
    throw ApiError(400, "'suffix' is not supported: GPT-2 continues a text, it does not fill in",
                   "suffix");
  }
  fields.reject_unread();
  check_context(request, model, "prompt");
  return request;
}

}  // namespace wgpt::serve
