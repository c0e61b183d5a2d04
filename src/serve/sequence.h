#pragma once
// One sequence on the scheduler's side — one of a request's n choices: what it runs next, its
// text as it streams (UTF-8 completed, stop sequences held back), and when it ends: at the model's
// end-of-text token or a stop sequence ("stop"), or after max_tokens ("length").

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "serve/event_channel.h"
#include "wgpt/generate.h"
#include "wgpt/tokenizer.h"

namespace wgpt::serve {

// What a handler asks the scheduler to generate.
struct SequenceRequest {
  size_t choice = 0;
  std::vector<uint32_t> prompt;  // not empty; prompt + max_tokens fit the model's context
  generate::SamplingOptions sampling;
  size_t max_tokens = 16;
  bool ignore_eos = false;  // the end-of-text token is text like any other (fixed-length runs)
  std::vector<std::string> stop;
  StepReport report;
};

class Sequence {
 public:
  using Clock = std::chrono::steady_clock;
  // `eos`: the model's end-of-text token, when it has one.
  Sequence(SequenceRequest request, std::shared_ptr<EventChannel> channel,
           const tokenizer::Tokenizer& tokenizer, std::optional<uint32_t> eos,
           Clock::time_point arrived);

  const SequenceRequest& request() const { return request_; }
  Clock::time_point arrived() const { return arrived_; }
  size_t generated() const { return generated_; }
  bool cancelled() const { return channel_->cancelled(); }

  // The step for this sequence in `slot`: its prompt first, then its last token.
  StepInput input(size_t slot) const;
  // Takes its step's output and streams it; returns whether the sequence goes on. The event that
  // ends the sequence is held back for send_final(), so the scheduler can free the slot first: a
  // client that sends its next request on seeing the last event must find the slot free.
  bool accept(StepOutput output);
  // Streams the held-back last event, if any.
  void send_final();
  // Ends the sequence with nothing generated (max_tokens 0).
  void finish_empty();
  // Ends the sequence with an error event.
  void fail(SequenceFailure failure);

 private:
  // The text still held back once generation ends, and whether a stop sequence ended it.
  std::string flush_text();

  SequenceRequest request_;
  std::shared_ptr<EventChannel> channel_;
  const tokenizer::Tokenizer& tokenizer_;
  std::optional<uint32_t> eos_;
  Clock::time_point arrived_;
  generate::Utf8Stream utf8_;
  generate::StopSequences stop_;
  uint32_t last_ = 0;
  size_t generated_ = 0;
  std::optional<SequenceEvent> final_;  // the last event, until send_final()
};

}  // namespace wgpt::serve
