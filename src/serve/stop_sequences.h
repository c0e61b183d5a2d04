#pragma once
// OpenAI's `stop`: generation ends where the text first contains one of the stop sequences, and
// the text returned ends just before it. Streaming text is released as it is generated, except a
// tail that could still become a stop sequence, which is held back until the next text decides.

#include <string>
#include <string_view>
#include <vector>

namespace wgpt::serve {

class StopSequences {
 public:
  // Each sequence non-empty UTF-8 (the request's validation sees to that).
  explicit StopSequences(std::vector<std::string> sequences);

  // Adds generated text; returns the text now known to come before any stop sequence.
  std::string push(std::string_view text);
  // Whether a stop sequence has appeared (push then returned the text before it, and the rest
  // is dropped).
  bool matched() const { return matched_; }
  // The held-back tail, released when the generation ends without a stop sequence.
  std::string flush();

 private:
  // The length of the longest tail of held_ that is a proper prefix of some stop sequence.
  size_t possible_start() const;

  std::vector<std::string> sequences_;
  std::string held_;
  bool matched_ = false;
};

}  // namespace wgpt::serve
