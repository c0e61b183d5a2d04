#pragma once
// The body of POST /v1/completions and POST /v1/chat/completions, checked against the model and
// turned into the sequences the scheduler runs. Every field follows OpenAI's name and meaning;
// the ones wgpt adds are `top_k` and the probe, `"wgpt": {"attention": true, "top": 10}`.
// docs/serve.md lists the fields, their ranges and their errors.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve/request_fields.h"
#include "serve/sequence.h"
#include "wgpt/tokenizer.h"

namespace wgpt::serve {

// What requests are checked against.
struct ServedModel {
  std::string name;  // the id /v1/models gives; a request's `model` must be it when present
  const tokenizer::Tokenizer& tokenizer;
  size_t n_ctx = 0;
  size_t vocab_size = 0;
};

// Per-request limits beyond the model's context.
inline constexpr size_t kMaxChoices = 16;      // n
inline constexpr size_t kMaxStops = 4;         // stop sequences
inline constexpr size_t kMaxTopLogprobs = 20;  // logprobs (completions), top_logprobs (chat)
inline constexpr size_t kMaxProbeTop = 100;    // wgpt.top

struct ProbeRequest {
  bool attention = false;  // every layer's attention row for each new token
  size_t top = 0;          // the most likely next tokens at each step
  bool any() const { return attention || top > 0; }
};

struct Prompt {
  std::vector<uint32_t> ids;
  std::string text;  // the ids' bytes (what echo returns)
};

struct GenerationRequest {
  bool chat = false;
  Prompt prompt;
  size_t max_tokens = 16;
  bool ignore_eos = false;             // llama-server's and vLLM's: generate max_tokens tokens
  generate::SamplingOptions sampling;  // choice i samples from seed + i
  std::vector<std::string> stop;
  size_t n = 1;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  bool echo = false;           // completions: the prompt comes first in the text
  bool logprobs = false;       // each token's log-probability
  size_t top_logprobs = 0;     // with this many alternatives
  ProbeRequest probe;

  std::vector<SequenceRequest> sequences() const;
};

// Both throw ApiError (400, or 404 for another model's name) naming the field at fault.
GenerationRequest parse_completion_request(const nlohmann::json& body, const ServedModel& model);
GenerationRequest parse_chat_request(const nlohmann::json& body, const ServedModel& model);

// `prompt` of /v1/completions and /v1/score: a string, or token ids (also each alone in an
// array, as OpenAI's batch form with one prompt). Throws ApiError naming `field`.
Prompt read_prompt(const nlohmann::json* value, const ServedModel& model, const char* field);
// `model`: absent, or the served model's name (else 404).
void check_model_name(const nlohmann::json* value, const ServedModel& model);

// Shared by the two parsers: the sampling fields, n, stop, stream and stream_options, the probe,
// the penalties and logit_bias, and the model's name.
void read_generation_fields(RequestFields& fields, const ServedModel& model,
                            GenerationRequest& request);
// A 400 when prompt + max_tokens exceed the context; `prompt_field` names the prompt's field.
void check_context(const GenerationRequest& request, const ServedModel& model,
                   const char* prompt_field);

}  // namespace wgpt::serve
