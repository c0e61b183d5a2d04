#pragma once
// The scheduler: the one owner of the model, the GPU and the batch (as llama-server's). It runs in
// ticks on the model's thread; each tick runs at most one queued job (scoring), lets waiting
// sequences take free slots, drops the ones whose client has gone, and advances every active
// sequence by one token through the step engine. Handlers on other threads only submit work and
// read the events it produces.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "serve/metrics.h"
#include "serve/sequence.h"
#include "serve/step_engine.h"

namespace wgpt::serve {

enum class Admission { accepted, queue_full, shutting_down };

// A job handed to the model's thread: whether it was taken, and then its result.
template <class T>
struct QueuedJob {
  Admission admission = Admission::accepted;
  std::future<T> result;  // valid when taken
};

class Scheduler {
 public:
  using Clock = std::chrono::steady_clock;

  // `engine`, `tokenizer` and `metrics` must outlive the scheduler. At most `queue_capacity`
  // sequences and jobs wait for the model at once.
  Scheduler(StepEngine& engine, const tokenizer::Tokenizer& tokenizer, std::optional<uint32_t> eos,
            Metrics& metrics, size_t queue_capacity);

  // Any thread. A request's sequences join the queue together or not at all; their events go to
  // `channel`. A sequence with max_tokens 0 ends at once, taking no slot.
  Admission submit(std::vector<SequenceRequest> requests, std::shared_ptr<EventChannel> channel);
  // Any thread: runs `work` on the model's thread between two ticks; its result or exception
  // arrives through the future.
  template <class Work>
  QueuedJob<std::invoke_result_t<Work>> run_on_model_thread(Work work);

  // The model's thread: ticks while there is work, sleeps while there is none, and returns once
  // drain() has been called and everything in flight has ended.
  void run();
  // One tick; returns whether work remains. Tests drive the scheduler with it.
  bool tick();
  // Any thread: take nothing more, end the waiting sequences with an error, and let the running
  // ones go on until `deadline`, when they end with an error too.
  void drain(Clock::time_point deadline);

  Load load() const;

 private:
  Admission enqueue_job(std::function<void()> job);
  bool has_work() const;  // with mutex_ held
  void run_next_job();
  void admit_waiting();
  void drop_cancelled();
  void end_all_active(const SequenceFailure& failure);
  void step_active();
  void release(size_t slot);

  StepEngine& engine_;
  const tokenizer::Tokenizer& tokenizer_;
  std::optional<uint32_t> eos_;
  Metrics& metrics_;
  size_t queue_capacity_;

  mutable std::mutex mutex_;
  std::condition_variable work_arrived_;
  std::deque<std::unique_ptr<Sequence>> waiting_;
  std::deque<std::function<void()>> jobs_;
  std::optional<Clock::time_point> drain_deadline_;
  size_t busy_ = 0;  // written on the model's thread under mutex_, read by load()
  // By slot; only the model's thread touches it.
  std::vector<std::unique_ptr<Sequence>> active_;
};

template <class Work>
QueuedJob<std::invoke_result_t<Work>> Scheduler::run_on_model_thread(Work work) {
  using Value = std::invoke_result_t<Work>;
  auto promise = std::make_shared<std::promise<Value>>();
  QueuedJob<Value> job{Admission::accepted, promise->get_future()};
  job.admission = enqueue_job([promise, work = std::move(work)]() mutable {
    try {
      promise->set_value(work());
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  });
  return job;
}

}  // namespace wgpt::serve
