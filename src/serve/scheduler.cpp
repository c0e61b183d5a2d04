#include "serve/scheduler.h"

namespace wgpt::serve {
namespace {

const SequenceFailure kShuttingDown{503, "the server is shutting down"};

double seconds_between(Scheduler::Clock::time_point from, Scheduler::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

Scheduler::Scheduler(StepEngine& engine, const tokenizer::Tokenizer& tokenizer,
                     std::optional<uint32_t> eos, Metrics& metrics, size_t queue_capacity)
    : engine_(engine),
      tokenizer_(tokenizer),
      eos_(eos),
      metrics_(metrics),
      queue_capacity_(queue_capacity),
      active_(engine.slots()) {}

Admission Scheduler::submit(std::vector<SequenceRequest> requests,
                            std::shared_ptr<EventChannel> channel) {
  const Clock::time_point now = Clock::now();
  std::vector<std::unique_ptr<Sequence>> sequences;
  size_t to_queue = 0;
  for (SequenceRequest& request : requests) {
    to_queue += request.max_tokens > 0;
    sequences.push_back(
        std::make_unique<Sequence>(std::move(request), channel, tokenizer_, eos_, now));
  }
  {
    const std::lock_guard lock(mutex_);
    if (drain_deadline_) return Admission::shutting_down;
    // The queue holds what cannot start at the next tick: beyond the free slots.
    const size_t free_slots = active_.size() - busy_;
    if (waiting_.size() + jobs_.size() + to_queue > queue_capacity_ + free_slots) {
      return Admission::queue_full;
    }
    for (auto& sequence : sequences) {
      if (sequence->request().max_tokens > 0) waiting_.push_back(std::move(sequence));
    }
  }
  for (const auto& sequence : sequences) {
    if (sequence) sequence->finish_empty();  // the ones not moved into the queue
  }
  work_arrived_.notify_one();
  return Admission::accepted;
}

Admission Scheduler::enqueue_job(std::function<void()> job) {
  {
    const std::lock_guard lock(mutex_);
    if (drain_deadline_) return Admission::shutting_down;
    const size_t free_slots = active_.size() - busy_;
    if (waiting_.size() + jobs_.size() + 1 > queue_capacity_ + free_slots) {
      return Admission::queue_full;
    }
    jobs_.push_back(std::move(job));
  }
  work_arrived_.notify_one();
  return Admission::accepted;
}

bool Scheduler::has_work() const { return !jobs_.empty() || !waiting_.empty() || busy_ > 0; }

void Scheduler::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      work_arrived_.wait(lock, [&] { return has_work() || drain_deadline_.has_value(); });
      if (!has_work()) return;  // drained
    }
    tick();
  }
}

bool Scheduler::tick() {
  run_next_job();
  drop_cancelled();
  admit_waiting();
  bool past_deadline;
  {
    const std::lock_guard lock(mutex_);
    past_deadline = drain_deadline_ && Clock::now() >= *drain_deadline_;
  }
  if (past_deadline) {
    end_all_active({503, kShuttingDown.message + ": the request did not finish in time"});
  }
  step_active();
  const std::lock_guard lock(mutex_);
  return has_work();
}

void Scheduler::drain(Clock::time_point deadline) {
  std::deque<std::unique_ptr<Sequence>> waiting;
  {
    const std::lock_guard lock(mutex_);
    if (drain_deadline_) return;
    drain_deadline_ = deadline;
    waiting.swap(waiting_);
  }
  for (const auto& sequence : waiting) sequence->fail(kShuttingDown);
  work_arrived_.notify_all();
}

Load Scheduler::load() const {
  const std::lock_guard lock(mutex_);
  return {waiting_.size() + jobs_.size(), busy_, active_.size()};
}

void Scheduler::run_next_job() {
  std::function<void()> job;
  {
    const std::lock_guard lock(mutex_);
    if (jobs_.empty()) return;
    job = std::move(jobs_.front());
    jobs_.pop_front();
  }
  job();
}

void Scheduler::drop_cancelled() {
  {
    const std::lock_guard lock(mutex_);
    const size_t dropped = std::erase_if(waiting_, [](const auto& s) { return s->cancelled(); });
    for (size_t i = 0; i < dropped; ++i) metrics_.sequence_cancelled();
  }
  for (size_t slot = 0; slot < active_.size(); ++slot) {
    if (active_[slot] && active_[slot]->cancelled()) {
      metrics_.sequence_cancelled();
      release(slot);
    }
  }
}

void Scheduler::admit_waiting() {
  std::vector<size_t> joined;
  {
    const std::lock_guard lock(mutex_);
    for (size_t slot = 0; slot < active_.size() && !waiting_.empty(); ++slot) {
      if (active_[slot]) continue;
      active_[slot] = std::move(waiting_.front());
      waiting_.pop_front();
      ++busy_;
      joined.push_back(slot);
    }
  }
  for (size_t slot : joined) {
    try {
      engine_.begin(slot, active_[slot]->request().sampling);
    } catch (const std::exception& error) {
      active_[slot]->fail({500, error.what()});
      release(slot);
    }
  }
}

void Scheduler::end_all_active(const SequenceFailure& failure) {
  for (size_t slot = 0; slot < active_.size(); ++slot) {
    if (!active_[slot]) continue;
    active_[slot]->fail(failure);
    release(slot);
  }
}

void Scheduler::step_active() {
  std::vector<StepInput> batch;
  for (size_t slot = 0; slot < active_.size(); ++slot) {
    if (active_[slot]) batch.push_back(active_[slot]->input(slot));
  }
  if (batch.empty()) return;
  std::vector<StepOutput> outputs;
  try {
    outputs = engine_.step(batch);
  } catch (const std::exception& error) {
    return end_all_active({500, std::string("the model failed: ") + error.what()});
  }
  const Clock::time_point now = Clock::now();
  metrics_.tokens_generated(outputs.size(), now);
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t slot = batch[i].slot;
    Sequence& sequence = *active_[slot];
    if (sequence.generated() == 0) {
      metrics_.prompt_started(sequence.request().prompt.size());
      metrics_.first_token(seconds_between(sequence.arrived(), now));
    }
    try {
      if (sequence.accept(std::move(outputs[i]))) continue;
    } catch (const std::exception& error) {  // a token the tokenizer cannot spell
      sequence.fail({500, error.what()});
    }
    release(slot);
  }
}

void Scheduler::release(size_t slot) {
  const std::unique_ptr<Sequence> sequence = std::move(active_[slot]);
  {
    const std::lock_guard lock(mutex_);
    --busy_;
  }
  sequence->send_final();
}

}  // namespace wgpt::serve
