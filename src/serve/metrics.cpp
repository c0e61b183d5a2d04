#include "serve/metrics.h"

#include <algorithm>
#include <sstream>

namespace wgpt::serve {
namespace {

int64_t whole_seconds(Metrics::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

void family(std::ostringstream& out, const char* name, const char* type, const char* help) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
}

}  // namespace

void Metrics::request_done(const std::string& endpoint, int status) {
  const std::lock_guard lock(mutex_);
  ++requests_[{endpoint, status}];
}

void Metrics::prompt_started(size_t tokens) {
  const std::lock_guard lock(mutex_);
  prompt_tokens_ += tokens;
}

void Metrics::tokens_generated(size_t tokens, Clock::time_point now) {
  const std::lock_guard lock(mutex_);
  generated_tokens_ += tokens;
  const int64_t second = whole_seconds(now);
  auto& [stamp, count] = per_second_[static_cast<size_t>(second) % kRateSeconds];
  if (stamp != second) {
    stamp = second;
    count = 0;
  }
  count += tokens;
}

void Metrics::first_token(double seconds) {
  const std::lock_guard lock(mutex_);
  const auto bucket =
      std::lower_bound(kFirstTokenBuckets.begin(), kFirstTokenBuckets.end(), seconds);
  if (bucket != kFirstTokenBuckets.end())
    ++first_token_counts_[bucket - kFirstTokenBuckets.begin()];
  ++first_token_count_;
  first_token_sum_ += seconds;
}

void Metrics::sequence_cancelled() {
  const std::lock_guard lock(mutex_);
  ++cancelled_;
}

double Metrics::tokens_per_second(Clock::time_point now) const {
  const int64_t second = whole_seconds(now);
  uint64_t total = 0;
  for (const auto& [stamp, count] : per_second_) {
    if (stamp > second - static_cast<int64_t>(kRateSeconds) && stamp <= second) total += count;
  }
  return static_cast<double>(total) / kRateSeconds;
}

std::string Metrics::prometheus(const Load& load, Clock::time_point now) const {
  const std::lock_guard lock(mutex_);
  std::ostringstream out;
  family(out, "wgpt_requests_total", "counter", "HTTP requests answered, by endpoint and status.");
  for (const auto& [key, count] : requests_) {
    out << "wgpt_requests_total{endpoint=\"" << key.first << "\",status=\"" << key.second << "\"} "
        << count << '\n';
  }
  family(out, "wgpt_prompt_tokens_total", "counter", "Prompt tokens prefilled.");
  out << "wgpt_prompt_tokens_total " << prompt_tokens_ << '\n';
  family(out, "wgpt_generated_tokens_total", "counter", "Tokens generated.");
  out << "wgpt_generated_tokens_total " << generated_tokens_ << '\n';
  family(out, "wgpt_sequences_cancelled_total", "counter",
         "Sequences dropped because their client disconnected.");
  out << "wgpt_sequences_cancelled_total " << cancelled_ << '\n';
  family(out, "wgpt_queue_depth", "gauge", "Sequences and scoring jobs waiting for the model.");
  out << "wgpt_queue_depth " << load.queued << '\n';
  family(out, "wgpt_slots_busy", "gauge", "Slots (KV caches) holding a sequence.");
  out << "wgpt_slots_busy " << load.busy << '\n';
  family(out, "wgpt_slots", "gauge", "Slots: sequences decoded together (--parallel).");
  out << "wgpt_slots " << load.slots << '\n';
  family(out, "wgpt_tokens_per_second", "gauge", "Tokens generated per second over the last 10 s.");
  out << "wgpt_tokens_per_second " << tokens_per_second(now) << '\n';
  family(out, "wgpt_time_to_first_token_seconds", "histogram",
         "From a sequence's arrival to its first generated token.");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kFirstTokenBuckets.size(); ++i) {
    cumulative += first_token_counts_[i];
    out << "wgpt_time_to_first_token_seconds_bucket{le=\"" << kFirstTokenBuckets[i] << "\"} "
        << cumulative << '\n';
  }
  out << "wgpt_time_to_first_token_seconds_bucket{le=\"+Inf\"} " << first_token_count_ << '\n';
  out << "wgpt_time_to_first_token_seconds_sum " << first_token_sum_ << '\n';
  out << "wgpt_time_to_first_token_seconds_count " << first_token_count_ << '\n';
  return out.str();
}

}  // namespace wgpt::serve
