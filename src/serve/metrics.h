#pragma once
// The server's counters, rendered in Prometheus's text format for GET /metrics: requests by
// endpoint and status, prompt and generated tokens, cancelled sequences, the queue and the slots,
// generation speed over the last few seconds and time to first token as a histogram.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace wgpt::serve {

// The scheduler's state at the moment of a scrape.
struct Load {
  size_t queued = 0;  // sequences and jobs waiting
  size_t busy = 0;    // slots holding a sequence
  size_t slots = 0;
};

class Metrics {
 public:
  using Clock = std::chrono::steady_clock;
  // The window tok/s is measured over.
  static constexpr size_t kRateSeconds = 10;

  // Any thread.
  void request_done(const std::string& endpoint, int status);
  void prompt_started(size_t tokens);
  void tokens_generated(size_t tokens, Clock::time_point now);
  void first_token(double seconds);
  void sequence_cancelled();

  std::string prometheus(const Load& load, Clock::time_point now) const;

 private:
  double tokens_per_second(Clock::time_point now) const;

  static constexpr std::array<double, 9> kFirstTokenBuckets = {0.05, 0.1, 0.25, 0.5, 1,
                                                               2.5,  5,   10,   30};
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  uint64_t prompt_tokens_ = 0;
  uint64_t generated_tokens_ = 0;
  uint64_t cancelled_ = 0;
  std::array<uint64_t, kFirstTokenBuckets.size()> first_token_counts_{};  // per bucket, not summed
  uint64_t first_token_count_ = 0;
  double first_token_sum_ = 0;
  // Tokens generated in each of the last kRateSeconds whole seconds, stamped with the second.
  std::array<std::pair<int64_t, uint64_t>, kRateSeconds> per_second_{};
};

}  // namespace wgpt::serve
