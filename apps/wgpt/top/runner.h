#pragma once
// Runs one model at a time on a worker thread for `wgpt top`: loads it, streams a prompt's
// continuation, and records when each piece of text arrived, so the dashboard can show time to
// first token, the instant and mean tokens per second and a sparkline while it runs. Cancelling
// stops it after the token in flight.

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "top/scan.h"
#include "wgpt/generate.h"

namespace wgpt::top {

struct RunRequest {
  std::string backend = "gpu";  // "cpu" or "gpu"
  std::string prompt;           // empty: a default the model's tokenizer can encode
  generate::GenerateOptions options;
};

enum class Phase { idle, loading, generating, cancelling, done, failed };

// What the dashboard draws; a copy taken under the runner's lock.
struct RunState {
  Phase phase = Phase::idle;
  std::string model, backend, adapter;
  std::string text;     // the prompt and what followed, the last 8 KiB
  std::string message;  // the error, or how the run ended
  double load_ms = 0;
  double first_token_ms = 0;  // from the start of generation (the prompt's pass) to the first token
  std::vector<double> token_ms;  // when each token's text arrived, from the start of generation
  size_t tokens = 0;             // the final count (text pieces can hold several tokens)
  double mean_rate = 0;          // decode tokens/s once finished (the first token excluded)

  // Tokens/s over the last `window` gaps between tokens (0 before two tokens).
  double instant_rate(size_t window = 8) const;
  // Decode tokens/s so far: the tokens after the first over the time since the first.
  double running_mean_rate() const;
  // Each token's own rate (1 / its gap), for the sparkline.
  std::vector<double> rates() const;
};

class Runner {
 public:
  ~Runner();
  // Starts a run unless one is in progress (then returns false).
  bool start(const ScannedModel& model, RunRequest request);
  void cancel();
  bool busy() const;
  RunState state() const;
  // The adapter of the GPU context, once a GPU run has made one ("" before).
  std::string adapter() const;

 private:
  void run(ScannedModel model, RunRequest request);
  void update(const std::function<void(RunState&)>& change);

  mutable std::mutex mutex_;
  RunState state_;
  std::shared_ptr<gpu::Context> context_;  // made by the first GPU run, kept for the next
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> busy_{false};
};

const char* to_string(Phase phase);

}  // namespace wgpt::top
