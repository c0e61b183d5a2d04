#include "serve/event_channel.h"

namespace wgpt::serve {

const char* to_string(FinishReason reason) {
  return reason == FinishReason::stop ? "stop" : "length";
}

void EventChannel::push(SequenceEvent event) {
  {
    const std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  arrived_.notify_one();
}

std::vector<SequenceEvent> EventChannel::take(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  arrived_.wait_for(lock, timeout, [&] { return !events_.empty(); });
  std::vector<SequenceEvent> taken(std::make_move_iterator(events_.begin()),
                                   std::make_move_iterator(events_.end()));
  events_.clear();
  return taken;
}

}  // namespace wgpt::serve
