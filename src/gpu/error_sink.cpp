#include "gpu/webgpu_api.h"

namespace wgpt::gpu::api {

void ErrorSink::report(std::string message) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> ErrorSink::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(messages_, {});
}

void ErrorSink::mark_lost(std::string message) {
  std::lock_guard lock(mutex_);
  lost_ = true;
  lost_message_ = std::move(message);
}

bool ErrorSink::lost() const {
  std::lock_guard lock(mutex_);
  return lost_;
}

std::string ErrorSink::lost_message() const {
  std::lock_guard lock(mutex_);
  return lost_message_;
}

}  // namespace wgpt::gpu::api
