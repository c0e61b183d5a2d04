#pragma once
// What the scheduler tells a request's handler, and the channel it goes through: the scheduler's
// thread pushes each sequence's events as its tokens are chosen, the handler's thread takes them
// and writes them out, and a handler whose client has gone cancels the channel, which the
// scheduler sees at its next tick.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "serve/step_engine.h"

namespace wgpt::serve {

enum class FinishReason { stop, length };  // OpenAI's finish_reason: "stop", "length"
const char* to_string(FinishReason reason);

// One generated token and what its step reported (StepOutput, with the token's id).
struct TokenRecord {
  uint32_t id = 0;
  float logprob = 0;
  std::vector<model::TopToken> top;
  size_t kv_len = 0;
  std::vector<float> attention;  // [n_layer][n_head][kv_len]
};

// Why a sequence ended early: the HTTP status its request answers with, and a sentence.
struct SequenceFailure {
  int status = 500;  // 503 when the server is shutting down
  std::string message;
};

struct SequenceEvent {
  size_t choice = 0;                     // which of the request's n sequences
  std::string text;                      // text released by this event (may be empty)
  std::optional<TokenRecord> token;      // the token this event reports, if any
  std::optional<FinishReason> finish;    // the sequence ended normally
  std::optional<SequenceFailure> error;  // the sequence ended with this error

  bool ends() const { return finish.has_value() || error.has_value(); }
};

class EventChannel {
 public:
  void push(SequenceEvent event);
  // Everything pushed since the last take, waiting up to `timeout` for something to arrive.
  std::vector<SequenceEvent> take(std::chrono::milliseconds timeout);
  // The handler gave up (its client disconnected): the scheduler drops the request's sequences.
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<SequenceEvent> events_;
  std::atomic<bool> cancelled_ = false;
};

}  // namespace wgpt::serve
