#pragma once
// The answer to a generation request, built from the scheduler's events: server-sent-event chunks
// as they arrive (stream: true), or one object once every choice has ended. /v1/completions
// (`text_completion`) and /v1/chat/completions (`chat.completion`) differ only in shape: the text
// as `text` or as the assistant's `message`/`delta`, logprobs in the legacy or the chat layout.
// The probe, when asked for, is each choice's `wgpt.tokens`: per token its id and text, its
// attention rows (attention[layer][head][key]) and the most likely next tokens.

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "serve/generation_request.h"
#include "wgpt/model.h"
#include "wgpt/probe.h"

namespace wgpt::serve {

using Json = nlohmann::ordered_json;

class GenerationResponse {
 public:
  // `request` and `model` must outlive the response. `prompt_scores`: the prompt's surprisal,
  // for echo with logprobs.
  GenerationResponse(const GenerationRequest& request, const ServedModel& model,
                     const model::Config& config, std::optional<model::Surprisal> prompt_scores);

  // Streaming: what opens each choice's stream — the echoed prompt (completions with echo) or
  // the assistant's role (chat).
  std::vector<Json> opening_chunks();
  // Streaming: the chunk an event gives, or none when it carries nothing.
  std::optional<Json> chunk(const SequenceEvent& event);
  // Streaming, with stream_options.include_usage: the last chunk before [DONE].
  Json usage_chunk() const;

  // Not streaming: takes an event into the object answered at the end.
  void add(SequenceEvent event);
  Json object() const;

  // Whether every choice has ended (finished events seen, by either path).
  bool finished() const { return finished_ == choices_.size(); }

 private:
  struct Choice {
    std::string text;                 // not streaming: the text generated
    std::vector<TokenRecord> tokens;  // not streaming: every generated token
    size_t text_offset = 0;           // streaming: bytes of text before the next token
    std::optional<FinishReason> finish;
  };

  Json envelope(bool chunk) const;
  // What one entry of `choices` holds.
  struct ChoicePart {
    size_t index = 0;
    std::string text;
    std::span<const TokenRecord> tokens;
    std::optional<FinishReason> finish;
    bool chunk = false;    // a delta in a chunk, else the whole choice of the final object
    bool opening = false;  // a stream's first chunk: chat's role, completions' echoed prompt
  };
  // `text_offset`: the text's length before this part's tokens (legacy logprobs).
  Json choice_json(const ChoicePart& part, size_t& text_offset) const;
  // Logprobs of `tokens` (after the prompt's, when `with_prompt`); `offset` is the text's length
  // before them and advances past them. Null when the request did not ask for logprobs.
  Json logprobs_json(std::span<const TokenRecord> tokens, bool with_prompt, size_t& offset) const;
  Json chat_logprobs(std::span<const TokenRecord> tokens) const;
  Json probe_json(std::span<const TokenRecord> tokens) const;
  Json usage() const;
  void note(const SequenceEvent& event);

  const GenerationRequest& request_;
  const ServedModel& model_;
  size_t n_layer_, n_head_;
  std::optional<model::Surprisal> prompt_scores_;
  std::string id_;
  int64_t created_;
  std::vector<Choice> choices_;
  size_t completion_tokens_ = 0;
  size_t finished_ = 0;
};

}  // namespace wgpt::serve
