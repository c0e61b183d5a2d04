// generate::StopSequences: stop strings over streamed text (wgpt generate --stop, serve's `stop`).
#include <algorithm>

#include "wgpt/generate.h"

namespace wgpt::generate {

StopSequences::StopSequences(std::vector<std::string> sequences)
    : sequences_(std::move(sequences)) {}

std::string StopSequences::push(std::string_view text) {
  if (matched_) return {};
  held_ += text;
  size_t first = std::string::npos;
  for (const std::string& sequence : sequences_) first = std::min(first, held_.find(sequence));
  if (first != std::string::npos) {
    matched_ = true;
    std::string before = held_.substr(0, first);
    held_.clear();
    return before;
  }
  // A stop sequence starts with a whole UTF-8 character, so the tail kept back starts on one and
  // the text released ends on a character boundary.
  const size_t keep = possible_start();
  std::string released = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return released;
}

std::string StopSequences::flush() {
  std::string rest;
  rest.swap(held_);
  return rest;
}

size_t StopSequences::possible_start() const {
  size_t longest = 0;
  for (const std::string& sequence : sequences_) {
    const size_t most = std::min(held_.size(), sequence.size() - 1);
    for (size_t length = most; length > longest; --length) {
      if (std::string_view(held_).substr(held_.size() - length) ==
          std::string_view(sequence).substr(0, length)) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

}  // namespace wgpt::generate
