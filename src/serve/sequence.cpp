#include "serve/sequence.h"

namespace wgpt::serve {

Sequence::Sequence(SequenceRequest request, std::shared_ptr<EventChannel> channel,
                   const tokenizer::Tokenizer& tokenizer, std::optional<uint32_t> eos,
                   Clock::time_point arrived)
    : request_(std::move(request)),
      channel_(std::move(channel)),
      tokenizer_(tokenizer),
      eos_(eos),
      arrived_(arrived),
      stop_(request_.stop) {}

StepInput Sequence::input(size_t slot) const {
  if (generated_ == 0) return {slot, request_.prompt, request_.report};
  return {slot, std::span(&last_, 1), request_.report};
}

std::string Sequence::flush_text() {
  std::string text = stop_.push(utf8_.finish());
  if (!stop_.matched()) text += stop_.flush();
  return text;
}

bool Sequence::accept(StepOutput output) {
  SequenceEvent event{.choice = request_.choice};
  if (eos_ && output.token == *eos_ && !request_.ignore_eos) {
    // The end-of-text token ends the text; it is not part of it.
    event.text = flush_text();
    event.finish = FinishReason::stop;
    final_ = std::move(event);
    return false;
  }
  last_ = output.token;
  ++generated_;
  event.text = stop_.push(utf8_.push(tokenizer_.token_bytes(output.token)));
  event.token = TokenRecord{output.token, output.logprob, std::move(output.top), output.kv_len,
                            std::move(output.attention)};
  if (!stop_.matched() && generated_ == request_.max_tokens) {
    event.text += flush_text();
    if (!stop_.matched()) event.finish = FinishReason::length;
  }
  if (stop_.matched()) event.finish = FinishReason::stop;
  if (event.finish) {
    final_ = std::move(event);
    return false;
  }
  channel_->push(std::move(event));
  return true;
}

void Sequence::send_final() {
  if (!final_) return;
  channel_->push(std::move(*final_));
  final_.reset();
}

void Sequence::finish_empty() {
  channel_->push({.choice = request_.choice, .finish = FinishReason::length});
}

void Sequence::fail(SequenceFailure failure) {
  channel_->push({.choice = request_.choice, .error = std::move(failure)});
}

}  // namespace wgpt::serve
